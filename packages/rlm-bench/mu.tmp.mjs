import { createSesSandbox } from '@rlm/sandbox-ses';
const sandbox = await createSesSandbox()({ hostFunctions: {} }).catch(e => e);
function t(n,f){const c0=process.cpuUsage();const s=process.hrtime.bigint();for(let i=0;i<500;i++)f();const c=process.cpuUsage(c0);console.log(n,(Number(process.hrtime.bigint()-s)/500/1000).toFixed(1),'us wall', ((c.user+c.system)/500).toFixed(1),'us cpu')}
for(let k=0;k<2;k++){t('memoryUsage',()=>process.memoryUsage());t('rss',()=>process.memoryUsage.rss());}
console.log(typeof sandbox.execute);
if (sandbox.execute) { await sandbox.execute('1'); for(let k=0;k<2;k++){t('memoryUsage',()=>process.memoryUsage());t('rss',()=>process.memoryUsage.rss());} await sandbox.dispose(); }
