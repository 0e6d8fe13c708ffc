package dev.egressproxies.runtime.serve;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The routes of {@code serve}'s HTTP API: the {@code /v1/} documents and actions, {@code /healthz},
 * {@code /readyz}, {@code /metrics} and the status page at {@code /}.
 *
 * <p>Who may call what: with a token, the actions ({@code POST}) need it; when {@code serve}
 * listens beyond loopback, the documents and metrics need it too. The page itself and the health
 * probes carry no fleet data and are always open (the page asks for the token when it needs one).
 */
final class ApiHandler extends Handler.Abstract {
    private static final String JSON = "application/json";
    private static final String PAGE_RESOURCE = "status.html";

    private final Reconciler reconciler;
    private final ServeMetrics metrics;
    private final BearerToken token;
    private final boolean tokenForReads;
    private final boolean loopbackHostsOnly;
    private final Supplier<Optional<String>> notReady;
    private final FleetPeers peers;
    private final ApiDocuments documents = new ApiDocuments();
    private final byte[] page;
    private volatile ProxiesDocument proxiesDocument = new ProxiesDocument(-1, -1, "", new byte[0], new byte[0]);

    /**
     * The serialised {@code /v1/proxies} of one version of the views and one desired revision, plain
     * and gzipped (a tenth of the size: what a dashboard that asks for gzip is sent).
     */
    private record ProxiesDocument(long version, long peersVersion, String revision, byte[] plain, byte[] gzipped) {
    }

    /**
     * @param token         the API token, or null when none is configured
     * @param beyondLoopback whether serve listens beyond loopback: reads need the token too; on
     *                      loopback, requests must name a loopback host instead
     * @param notReady      why the service is not ready, or empty when it is
     * @param peers         the other replicas, {@link FleetPeers#NONE} for a single serve
     */
    ApiHandler(Reconciler reconciler, ServeMetrics metrics, BearerToken token, boolean beyondLoopback,
               Supplier<Optional<String>> notReady, FleetPeers peers) {
        this.peers = peers;
        this.reconciler = reconciler;
        this.metrics = metrics;
        this.token = token;
        this.tokenForReads = beyondLoopback && token != null;
        this.loopbackHostsOnly = !beyondLoopback;
        this.notReady = notReady;
        this.page = statusPage();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        boolean read = HttpMethod.GET.is(request.getMethod()) || HttpMethod.HEAD.is(request.getMethod());
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        if (loopbackHostsOnly && !loopbackHost(request)) {
            // A web page whose name was rebound to 127.0.0.1 would otherwise read and drive the API.
            json(response, callback, HttpStatus.MISDIRECTED_REQUEST_421, documents.error("serve listens on loopback"
                    + " and answers only requests for 127.0.0.1, localhost or [::1]"));
            return true;
        }
        if (!read && crossSite(request)) {
            json(response, callback, HttpStatus.FORBIDDEN_403, documents.error("a request from another site cannot"
                    + " act on serve; send it from its own page, or from a client that is not a browser"));
            return true;
        }
        switch (path) {
            case "/" -> {
                if (!readOnly(read, response, callback)) {
                    return true;
                }
                response.getHeaders().put("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline';"
                        + " style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'");
                send(response, callback, HttpStatus.OK_200, "text/html; charset=utf-8", page);
            }
            case "/healthz" -> {
                if (readOnly(read, response, callback)) {
                    text(response, callback, HttpStatus.OK_200, "ok");
                }
            }
            case "/readyz" -> {
                if (readOnly(read, response, callback)) {
                    Optional<String> reason = notReady.get();
                    text(response, callback, reason.isEmpty() ? HttpStatus.OK_200 : HttpStatus.SERVICE_UNAVAILABLE_503,
                            reason.orElse("ready"));
                }
            }
            case "/metrics" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    metrics.write(out);
                    send(response, callback, HttpStatus.OK_200, metrics.contentType(), out.toByteArray());
                }
            }
            case "/v1/proxies" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    ProxiesDocument document = proxiesDocument();
                    response.getHeaders().put(HttpHeader.VARY, "Accept-Encoding");
                    if (acceptsGzip(request)) {
                        response.getHeaders().put(HttpHeader.CONTENT_ENCODING, "gzip");
                        send(response, callback, HttpStatus.OK_200, JSON, document.gzipped());
                    } else {
                        send(response, callback, HttpStatus.OK_200, JSON, document.plain());
                    }
                }
            }
            case "/v1/entries" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    json(response, callback, HttpStatus.OK_200, documents.entries(reconciler.entries(), peers));
                }
            }
            case "/v1/replicas" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    peers.replicas().ifPresentOrElse(document -> json(response, callback, HttpStatus.OK_200, document),
                            () -> json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("this serve runs"
                                    + " alone, without --etcd: it has no replicas")));
                }
            }
            case "/v1/desired" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    json(response, callback, HttpStatus.OK_200, documents.desired(reconciler.desired()));
                }
            }
            case "/v1/reconcile" -> {
                if (writeOnly(read, response, callback) && authorised(request, response, callback, true)) {
                    Optional<String> entry = Optional.ofNullable(query(request).getValue("entry"));
                    if (entry.isPresent() && !peers.showsOwn(entry.get())) {
                        json(response, callback, HttpStatus.CONFLICT_409, documents.error("this replica does not lead"
                                + " entry '" + entry.get() + "': " + peers.leaderOf(entry.get())));
                        return true;
                    }
                    List<String> queued = reconciler.requestPass(entry);
                    if (entry.isPresent() && queued.isEmpty()) {
                        json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("entry '" + entry.get()
                                + "' is not in the desired set in force"));
                    } else {
                        json(response, callback, HttpStatus.ACCEPTED_202, documents.list("queued", queued));
                    }
                }
            }
            case "/v1/deletions/confirm" -> {
                if (writeOnly(read, response, callback) && authorised(request, response, callback, true)) {
                    String entry = query(request).getValue("entry");
                    if (entry == null || entry.isBlank()) {
                        json(response, callback, HttpStatus.BAD_REQUEST_400, documents.error("name the entry whose held"
                                + " deletes you confirm: POST /v1/deletions/confirm?entry=ENTRY"));
                    } else if (!peers.showsOwn(entry)) {
                        json(response, callback, HttpStatus.CONFLICT_409, documents.error("this replica does not lead"
                                + " entry '" + entry + "', whose deletes only its leader holds: "
                                + peers.leaderOf(entry)));
                    } else {
                        reconciler.confirmDeletes(entry).ifPresentOrElse(
                                confirmed -> json(response, callback, HttpStatus.OK_200,
                                        documents.list("confirmed", confirmed)),
                                () -> json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("entry '"
                                        + entry + "' is not in the desired set in force")));
                    }
                }
            }
            default -> proxyOrMissing(path, read, request, response, callback);
        }
        return true;
    }

    private void proxyOrMissing(String path, boolean read, Request request, Response response, Callback callback) {
        String prefix = "/v1/proxies/";
        String[] parts = path.startsWith(prefix) ? path.substring(prefix.length()).split("/", -1) : new String[0];
        if (parts.length != 2) {
            json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("no such path: " + path
                    + " (see docs/serve-api.yaml for the API)"));
            return;
        }
        if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
            Optional<ObjectNode> shown = peers.showsOwn(parts[0])
                    ? reconciler.proxy(parts[0], parts[1]).map(documents::proxy) : publishedProxy(parts[0], parts[1]);
            shown.ifPresentOrElse(
                    document -> json(response, callback, HttpStatus.OK_200, document),
                    () -> json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("no proxy '" + parts[1]
                            + "' in entry '" + parts[0] + "': it is neither desired nor managed there")));
        }
    }

    private Optional<ObjectNode> publishedProxy(String entry, String name) {
        ObjectNode published = peers.published().get(entry);
        if (published == null) {
            return Optional.empty();
        }
        for (JsonNode proxy : published.path("proxies")) {
            if (name.equals(proxy.path("name").asText())) {
                return Optional.of(((ObjectNode) proxy).deepCopy().put("leader", published.path("leader").asText()));
            }
        }
        return Optional.empty();
    }

    /**
     * The proxies document, made again only when a view or the revision changed: between two passes
     * every caller gets the same bytes, so a dashboard polling hundreds of proxies costs a copy, not
     * a serialisation.
     */
    private ProxiesDocument proxiesDocument() {
        long version = reconciler.proxiesVersion();
        long peersVersion = peers.version();
        String revision = reconciler.desired().revision();
        ProxiesDocument cached = proxiesDocument;
        if (cached.version() == version && cached.peersVersion() == peersVersion && cached.revision().equals(revision)) {
            return cached;
        }
        synchronized (this) {
            cached = proxiesDocument;
            if (cached.version() != version || cached.peersVersion() != peersVersion
                    || !cached.revision().equals(revision)) {
                // The version is read before the views, so a change during the read makes the next call read again.
                byte[] plain = documents.bytes(documents.proxies(revision, reconciler.proxies(), peers));
                cached = new ProxiesDocument(version, peersVersion, revision, plain, gzip(plain));
                proxiesDocument = cached;
            }
            return cached;
        }
    }

    private static boolean loopbackHost(Request request) {
        String host = Request.getServerName(request);
        return host.equals("127.0.0.1") || host.equalsIgnoreCase("localhost") || host.equals("[::1]")
                || host.equals("::1");
    }

    /**
     * Whether a browser sent this request from another site's page: its fetch metadata says so,
     * or its Origin is not this server's. Clients that are not browsers send neither.
     */
    private static boolean crossSite(Request request) {
        String site = request.getHeaders().get("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return true;
        }
        String origin = request.getHeaders().get(HttpHeader.ORIGIN);
        if (origin == null) {
            return false;
        }
        String own = request.getHttpURI().getScheme() + "://" + request.getHttpURI().getAuthority();
        return !origin.equalsIgnoreCase(own);
    }

    private static boolean acceptsGzip(Request request) {
        for (String value : request.getHeaders().getValuesList(HttpHeader.ACCEPT_ENCODING)) {
            for (String coding : value.split(",")) {
                String[] parts = coding.strip().split(";");
                if (parts[0].strip().equalsIgnoreCase("gzip") && !(parts.length > 1 && parts[1].replace(" ", "")
                        .equals("q=0"))) {
                    return true;
                }
            }
        }
        return false;
    }

    private static byte[] gzip(byte[] plain) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(plain.length / 8 + 64);
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(plain);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip into memory cannot fail", e);
        }
        return out.toByteArray();
    }

    private boolean authorised(Request request, Response response, Callback callback, boolean needed) {
        if (!needed || token == null || token.accepts(request.getHeaders().get(HttpHeader.AUTHORIZATION))) {
            return true;
        }
        response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"egressctl serve\"");
        json(response, callback, HttpStatus.UNAUTHORIZED_401, documents.error("this needs the API token: send"
                + " 'Authorization: Bearer TOKEN' with the token of serve's --token-file"));
        return false;
    }

    private boolean readOnly(boolean read, Response response, Callback callback) {
        if (!read) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            json(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, documents.error("use GET here"));
        }
        return read;
    }

    private boolean writeOnly(boolean read, Response response, Callback callback) {
        if (read) {
            response.getHeaders().put(HttpHeader.ALLOW, "POST");
            json(response, callback, HttpStatus.METHOD_NOT_ALLOWED_405, documents.error("use POST here"));
        }
        return !read;
    }

    private static Fields query(Request request) {
        return Request.extractQueryParameters(request, StandardCharsets.UTF_8);
    }

    private void json(Response response, Callback callback, int status, ObjectNode document) {
        send(response, callback, status, JSON, documents.bytes(document));
    }

    private static void text(Response response, Callback callback, int status, String body) {
        send(response, callback, status, "text/plain; charset=utf-8", (body + "\n").getBytes(StandardCharsets.UTF_8));
    }

    private static void send(Response response, Callback callback, int status, String type, byte[] body) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private static byte[] statusPage() {
        try (InputStream in = ApiHandler.class.getResourceAsStream(PAGE_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(PAGE_RESOURCE + " is missing from the runtime's jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
