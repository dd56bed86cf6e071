/** The API boundary against the hostile server over the undici wire (hostileBoundary.ts). */
import { hostileBoundary } from '../../api/hostileBoundary';

hostileBoundary('undici');
