/** The client against the emulator's `standard` profile over the undici wire (emulatorClient.ts). */
import { clientAgainstEmulator } from '../../api/emulatorClient';

clientAgainstEmulator('undici', 'standard');
