/**
 * The machine's own non-loopback address, for network tests whose target must not be loopback (the
 * client never sends loopback traffic through a proxy): the first IPv4 address of a network
 * interface that is not internal (eth0's on the test machines).
 */
import { networkInterfaces } from 'node:os';

/** A non-internal IPv4 address of this machine, or undefined when it has none (tests then skip, saying so). */
export function nonLoopbackIPv4(): string | undefined {
	for (const addresses of Object.values(networkInterfaces())) {
		for (const a of addresses ?? []) {
			if (a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.')) {
				return a.address;
			}
		}
	}
	return undefined;
}

/** Why a test that needs nonLoopbackIPv4() is skipped on a machine without one. */
export const NO_EXTERNAL_ADDRESS =
	'this machine has no non-loopback IPv4 address (os.networkInterfaces()): a proxied target must not be loopback';
