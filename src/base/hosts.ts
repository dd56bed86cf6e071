/**
 * Host names as a known_hosts line and the service's SSH gateway record take them: the one check,
 * used by the decoder of the gateway's host key (src/api/decode.ts), the known_hosts lines
 * (src/util/knownHosts.ts) and the host a person types (src/flows/platform.ts).
 */

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*\.?$/;
const IPV6 = /^[0-9A-Fa-f:.]{2,45}$/;

/** True for a host that may go into a known_hosts line as is: a DNS name, an IPv4 or an IPv6 address. */
export function isKnownHostsHost(host: string): boolean {
	return HOST_NAME.test(host) || (host.includes(':') && IPV6.test(host));
}
