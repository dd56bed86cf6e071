/** The client against the emulator's `variant` profile over the fetch wire (emulatorClient.ts). */
import { clientAgainstEmulator } from './emulatorClient';

clientAgainstEmulator('fetch', 'variant');
