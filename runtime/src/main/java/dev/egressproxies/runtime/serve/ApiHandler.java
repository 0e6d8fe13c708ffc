package dev.egressproxies.runtime.serve;

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
    private final Supplier<Optional<String>> notReady;
    private final ApiDocuments documents = new ApiDocuments();
    private final byte[] page;
    private volatile Rendered proxiesDocument = new Rendered(-1, "", new byte[0]);

    /**
     * The {@code /v1/proxies} document as last rendered, and the status version and desired
     * revision it shows: rendering 500 proxies costs far more than sending them, and the views
     * change only when a pass or an operation changes them.
     */
    private record Rendered(long version, String revision, byte[] bytes) {
    }

    /**
     * @param token         the API token, or null when none is configured
     * @param tokenForReads whether reads need the token too (a listen address beyond loopback)
     * @param notReady      why the service is not ready, or empty when it is
     */
    ApiHandler(Reconciler reconciler, ServeMetrics metrics, BearerToken token, boolean tokenForReads,
               Supplier<Optional<String>> notReady) {
        this.reconciler = reconciler;
        this.metrics = metrics;
        this.token = token;
        this.tokenForReads = tokenForReads && token != null;
        this.notReady = notReady;
        this.page = statusPage();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        String path = Request.getPathInContext(request);
        boolean read = HttpMethod.GET.is(request.getMethod()) || HttpMethod.HEAD.is(request.getMethod());
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        switch (path) {
            case "/" -> {
                if (!readOnly(read, response, callback)) {
                    return true;
                }
                response.getHeaders().put("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline';"
                        + " style-src 'unsafe-inline'; connect-src 'self'; img-src data:");
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
                    send(response, callback, HttpStatus.OK_200, JSON, proxiesDocument());
                }
            }
            case "/v1/entries" -> {
                if (readOnly(read, response, callback) && authorised(request, response, callback, tokenForReads)) {
                    json(response, callback, HttpStatus.OK_200, documents.entries(reconciler.entries()));
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

    /** The proxies document, rendered again only when a view or the desired revision changed since. */
    private byte[] proxiesDocument() {
        Rendered last = proxiesDocument;
        // Read before the views are copied, so the copy is never older than what it is filed under.
        long version = reconciler.proxiesVersion();
        String revision = reconciler.desired().revision();
        if (last.version() == version && last.revision().equals(revision)) {
            return last.bytes();
        }
        synchronized (this) {
            last = proxiesDocument;
            if (last.version() == version && last.revision().equals(revision)) {
                return last.bytes();
            }
            byte[] bytes = documents.bytes(documents.proxies(revision, reconciler.proxies()));
            proxiesDocument = new Rendered(version, revision, bytes);
            return bytes;
        }
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
            reconciler.proxy(parts[0], parts[1]).ifPresentOrElse(
                    view -> json(response, callback, HttpStatus.OK_200, documents.proxy(view)),
                    () -> json(response, callback, HttpStatus.NOT_FOUND_404, documents.error("no proxy '" + parts[1]
                            + "' in entry '" + parts[0] + "': it is neither desired nor managed there")));
        }
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
