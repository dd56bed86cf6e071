/**
 * The one decision of what counts as loopback: exactly `localhost`, an IPv4 address in
 * 127.0.0.0/8 and `::1`. Names that merely end in `localhost`, look-alikes such as
 * `127.0.0.1.example.com`, `localhost.` or out-of-range octets are not loopback. Plain `http:`
 * (and so a bearer token in clear text) is allowed only to these hosts.
 */

const IPV4_LOOPBACK = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** True when `hostname` (as `URL.hostname` gives it, IPv6 in brackets or not) is a loopback host. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	if (host === 'localhost' || host === '::1' || host === '[::1]') {
		return true;
	}
	const m = IPV4_LOOPBACK.exec(host);
	return m !== null && m.slice(1).every((octet) => Number(octet) <= 255 && String(Number(octet)) === octet);
}

/** True for an absolute http(s) URL whose host is a loopback host. */
export function isLoopbackUrl(url: string | URL): boolean {
	try {
		const u = new URL(String(url));
		return (u.protocol === 'http:' || u.protocol === 'https:') && isLoopbackHost(u.hostname);
	} catch {
		return false;
	}
}
