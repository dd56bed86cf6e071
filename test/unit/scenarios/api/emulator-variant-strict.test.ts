/** The `variant-strict` profile refuses the client's workspace body (emulatorClient.ts). */
import { variantStrictRefusesWorkspaceBody } from '../../api/emulatorClient';

variantStrictRefusesWorkspaceBody();
