/** The client against the emulator's `variant` profile over the undici wire (emulatorClient.ts). */
import { clientAgainstEmulator } from '../../api/emulatorClient';

clientAgainstEmulator('undici', 'variant');
