// Run tests/firmware/fw_probe.py under MicroPython (npm's WebAssembly port) and print its
// answers as one JSON line. Used by tests/firmware/test_fw_micropython.py:
//   node mpy_run.mjs PACKAGE_DIR FIRMWARE_DIR PROBE_DIR VECTORS_JSON
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [packageDir, firmwareDir, probeDir, vectorsPath] = process.argv.slice(2);
const { loadMicroPython } = await import(pathToFileURL(join(packageDir, "micropython.mjs")).href);
const out = [];
const err = [];
const mp = await loadMicroPython({
  heapsize: 16 * 1024 * 1024,
  stdout: (line) => out.push(line),
  stderr: (line) => err.push(line),
});
const copy = (dir, dest, names) => {
  mp.FS.mkdir(dest);
  for (const name of names) mp.FS.writeFile(`${dest}/${name}`, readFileSync(join(dir, name)));
};
copy(firmwareDir, "/firmware", readdirSync(firmwareDir).filter((n) => n.endsWith(".py")));
copy(probeDir, "/probe", ["fw_probe.py", "fw_fakes.py"]);
mp.FS.writeFile("/vectors.json", readFileSync(vectorsPath));
try {
  mp.runPython(`
import sys, json
sys.path.insert(0, "/probe")
sys.path.insert(0, "/firmware")
import fw_probe
with open("/vectors.json") as f:
    vectors = json.load(f)
print(json.dumps({"implementation": sys.implementation.name, "version": sys.version,
                  "answers": fw_probe.answers(vectors)}))
`);
} catch (e) {
  process.stderr.write(String(e) + "\n" + err.join("\n") + "\n");
  process.exit(1);
}
process.stdout.write(out.join("\n") + "\n");
