// Bundles emulator/src/main.ts with esbuild into .cache/emulator/main.cjs and runs it in this
// process, passing the command-line flags through: `npm run emulator -- --port 8787`.
// main parses process.argv.slice(2), which already holds the flags given after `--`.
import { loadEmulatorModule } from './lib/emulatorModule.mjs';

await loadEmulatorModule('main');
