/** The xDS type URLs of the four resource kinds we serve, and of the configs packed into `Any`. */
export const TYPE_URL = Object.freeze({
  listener: 'type.googleapis.com/envoy.config.listener.v3.Listener',
  route: 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration',
  cluster: 'type.googleapis.com/envoy.config.cluster.v3.Cluster',
  endpoint: 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment',
});

export type ResourceKind = keyof typeof TYPE_URL;

export const RESOURCE_KINDS: readonly ResourceKind[] = ['listener', 'route', 'cluster', 'endpoint'];

export function kindOfTypeUrl(typeUrl: string): ResourceKind | undefined {
  return RESOURCE_KINDS.find((kind) => TYPE_URL[kind] === typeUrl);
}

/** `type.googleapis.com/a.b.C` → `a.b.C`. */
export function messageNameOf(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
}

export const ANY = Object.freeze({
  httpConnectionManager: 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  extAuthz: 'type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz',
  rateLimit: 'type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit',
  grpcWeb: 'type.googleapis.com/envoy.extensions.filters.http.grpc_web.v3.GrpcWeb',
  cors: 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors',
  corsPolicy: 'type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy',
  router: 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router',
  filterConfig: 'type.googleapis.com/envoy.config.route.v3.FilterConfig',
  httpProtocolOptions: 'type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions',
});
