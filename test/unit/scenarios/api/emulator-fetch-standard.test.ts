/** The client against the emulator's `standard` profile over the fetch wire (emulatorClient.ts). */
import { clientAgainstEmulator } from '../../api/emulatorClient';

clientAgainstEmulator('fetch', 'standard');
