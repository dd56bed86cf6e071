/** The API boundary against the hostile server over the fetch wire (hostileBoundary.ts). */
import { hostileBoundary } from '../../api/hostileBoundary';

hostileBoundary('fetch');
