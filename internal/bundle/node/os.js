// node:os for fount: fixed, harmless values. A component learns nothing
// of the machine it runs on.
export const EOL = "\n";
export const devNull = "/dev/null";
export const platform = () => "linux";
export const type = () => "Linux";
export const arch = () => "wasm32";
export const release = () => "fount";
export const version = () => "fount";
export const machine = () => "wasm32";
export const hostname = () => "fount";
export const homedir = () => "/tmp";
export const tmpdir = () => "/tmp";
export const endianness = () => "LE";
export const uptime = () => 0;
export const loadavg = () => [0, 0, 0];
export const cpus = () => [];
export const availableParallelism = () => 1;
export const totalmem = () => 256 * 1024 * 1024;
export const freemem = () => 128 * 1024 * 1024;
export const networkInterfaces = () => ({});
export const userInfo = () => ({ uid: -1, gid: -1, username: "fount", homedir: "/tmp", shell: null });
export const constants = { signals: {}, errno: {} };
export default { EOL, devNull, platform, type, arch, release, version, machine, hostname, homedir, tmpdir, endianness,
  uptime, loadavg, cpus, availableParallelism, totalmem, freemem, networkInterfaces, userInfo, constants };
