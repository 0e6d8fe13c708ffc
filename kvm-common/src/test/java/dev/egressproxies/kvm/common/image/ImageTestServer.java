package dev.egressproxies.kvm.common.image;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP server that publishes test images, with answers a test arranges per path: a
 * file with its Content-Length, a generated body too large to hold, a status code, a chunked or
 * empty answer, a body cut off or stalled midway, an encoded one, a redirect.
 */
final class ImageTestServer implements AutoCloseable {
    /** How long a cut-off body stays open after its last bytes, so the client reads them as a body. */
    private static final long CUT_OFF_PAUSE_MILLIS = 200;

    /** How a path answers. */
    interface Answer {
        void respond(HttpExchange exchange) throws IOException;
    }

    private static final int SLICE = 64 * 1024;

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    private final List<String> authorizationHeaders = new CopyOnWriteArrayList<>();
    /** Opened by {@link #close()}, so stalled answers end with the test. */
    private final CountDownLatch closing = new CountDownLatch(1);

    ImageTestServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** The URL of {@code pathAndQuery} on this server. */
    String url(String pathAndQuery) {
        return "http://127.0.0.1:" + port() + pathAndQuery;
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Serves {@code content} with its Content-Length; HEAD answers with the length only. */
    ImageTestServer serve(String path, byte[] content) {
        return answer(path, exchange -> {
            if (isHead(exchange)) {
                // This server sends no length for a body-less answer unless it is set by hand.
                exchange.getResponseHeaders().set("Content-length", Long.toString(content.length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                writeInSlices(body, content);
            }
        });
    }

    /** Serves {@code length} bytes that {@code generator} makes as they are sent, never held whole. */
    ImageTestServer serveGenerated(String path, long length, GeneratedBytes generator) {
        return answer(path, exchange -> {
            if (isHead(exchange)) {
                exchange.getResponseHeaders().set("Content-length", Long.toString(length));
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, length);
            try (OutputStream body = exchange.getResponseBody()) {
                generator.writeTo(body, length);
            }
        });
    }

    /** Answers {@code status} with a small body and the given extra headers. */
    ImageTestServer status(String path, int status, String... headerNamesAndValues) {
        return answer(path, exchange -> {
            for (int index = 0; index + 1 < headerNamesAndValues.length; index += 2) {
                exchange.getResponseHeaders().add(headerNamesAndValues[index], headerNamesAndValues[index + 1]);
            }
            byte[] body = ("status " + status).getBytes();
            exchange.sendResponseHeaders(status, isHead(exchange) ? -1 : body.length);
            if (!isHead(exchange)) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        });
    }

    /** Serves {@code content} chunked, so without a Content-Length. */
    ImageTestServer serveChunked(String path, byte[] content) {
        return answer(path, exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
    }

    /** Answers 200 with {@code Content-Length: 0}. */
    ImageTestServer serveEmpty(String path) {
        return answer(path, exchange -> exchange.sendResponseHeaders(200, -1));
    }

    /**
     * Announces {@code content}'s length, sends its first {@code sent} bytes, then drops the
     * connection a moment later: cut off at once, the JDK client may fail the request before it
     * returns the response (an "unreachable" failure), which is not the body that ends early these
     * tests are about.
     */
    ImageTestServer serveCutOff(String path, byte[] content, int sent) {
        return answer(path, exchange -> {
            exchange.sendResponseHeaders(200, content.length);
            OutputStream body = exchange.getResponseBody();
            body.write(content, 0, sent);
            body.flush();
            try {
                Thread.sleep(CUT_OFF_PAUSE_MILLIS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            // Closing the exchange with bytes missing makes this server drop the connection.
            exchange.close();
        });
    }

    /** Announces {@code content}'s length, sends its first {@code sent} bytes, then nothing until closed. */
    ImageTestServer serveStalled(String path, byte[] content, int sent) {
        return answer(path, exchange -> {
            exchange.sendResponseHeaders(200, content.length);
            OutputStream body = exchange.getResponseBody();
            body.write(content, 0, sent);
            body.flush();
            awaitClosing();
            exchange.close();
        });
    }

    /** Sends no answer at all until closed. */
    ImageTestServer serveNothing(String path) {
        return answer(path, exchange -> awaitClosing());
    }

    /** Refuses HEAD with {@code headStatus} and serves GET with {@code content}. */
    ImageTestServer serveWithoutHead(String path, byte[] content, int headStatus) {
        return answer(path, exchange -> {
            if (isHead(exchange)) {
                exchange.sendResponseHeaders(headStatus, -1);
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
    }

    /** Answers HEAD 200 without a Content-Length, and GET with {@code content}. */
    ImageTestServer serveWithLengthlessHead(String path, byte[] content) {
        return answer(path, exchange -> {
            if (isHead(exchange)) {
                exchange.sendResponseHeaders(200, -1);
                exchange.getResponseHeaders().remove("Content-length");
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
    }

    /** Serves {@code content} labelled {@code Content-Encoding: gzip}, as a server that ignores Accept-Encoding. */
    ImageTestServer serveEncoded(String path, byte[] content) {
        return answer(path, exchange -> {
            exchange.getResponseHeaders().add("Content-Encoding", "gzip");
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
    }

    /** Redirects {@code path} to {@code location} with 302. */
    ImageTestServer redirect(String path, String location) {
        return status(path, 302, "Location", location);
    }

    /** Arranges any answer. */
    ImageTestServer answer(String path, Answer answer) {
        answers.put(path, answer);
        return this;
    }

    /** How many requests of {@code method} reached {@code path}. */
    int requests(String method, String path) {
        return requests.getOrDefault(method + " " + path, new AtomicInteger()).get();
    }

    /** Every Authorization header a request carried. */
    List<String> authorizationHeaders() {
        return authorizationHeaders;
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        requests.computeIfAbsent(exchange.getRequestMethod() + " " + path, unused -> new AtomicInteger())
                .incrementAndGet();
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        if (authorization != null) {
            authorizationHeaders.add(authorization);
        }
        Answer answer = answers.get(path);
        try {
            if (answer == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                answer.respond(exchange);
            }
        } catch (IOException clientWentAway) {
            // The client closed the connection (a probe, a rejected answer, a test's abort).
        } finally {
            exchange.close();
        }
    }

    private void awaitClosing() {
        try {
            closing.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Writes {@code content} a slice at a time: the JDK's server copies a large array written in one
     * call into buffers of its own while the client is slow, which would show as the pipeline's heap.
     */
    private static void writeInSlices(OutputStream body, byte[] content) throws IOException {
        for (int offset = 0; offset < content.length; offset += SLICE) {
            body.write(content, offset, Math.min(SLICE, content.length - offset));
        }
    }

    private static boolean isHead(HttpExchange exchange) {
        return exchange.getRequestMethod().equals("HEAD");
    }
}
