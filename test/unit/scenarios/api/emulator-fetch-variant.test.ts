/** The client against the emulator's `variant` profile over the fetch wire (emulatorClient.ts). */
import { clientAgainstEmulator } from '../../api/emulatorClient';

clientAgainstEmulator('fetch', 'variant');
