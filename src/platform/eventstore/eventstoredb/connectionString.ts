// The connection string's parts the service reads itself, without loading the client.

/**
 * Client 6.2.1 parses only `esdb://` and `esdb+discover://` (Client/parseConnectionString.js);
 * KurrentDB's schemes (`kurrentdb://`, `kurrentdb+discover://`, `kdb://`, `kdb+discover://`) name
 * the same gRPC protocol and options, so they are given to it under the esdb names.
 */
export function toClientConnectionString(connection: string): string {
  return connection.replace(
    /^(kurrentdb|kdb)(\+discover)?:\/\//i,
    (_, _scheme, discover = "") => `esdb${discover}://`,
  );
}

/**
 * The hosts of a connection string, for a person to read: `n1:2113,n2:2113` of
 * `esdb://admin:pw@n1:2113,n2:2113?tls=false`, without credentials or options. Several
 * comma-separated hosts are not a URL (`new URL` throws), so they are cut out by hand.
 */
export function eventStoreHosts(connection: string): string {
  // Credentials as the client reads them (parseConnectionString.js): `user:password@`, no @ inside.
  const rest = connection.replace(/^[a-z+]+:\/\//i, "").replace(/^[^:@]+:[^@]+@/, "");
  return rest.split(/[?/]/, 1)[0];
}
