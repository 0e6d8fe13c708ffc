package dev.egressproxies.kvm.common.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback HTTP server for image downloads, with answers a test arranges per path: an image
 * with or without Content-Length, a status code, a body cut off early, or one that stalls, or only
 * an announced length. A HEAD
 * to an image's path is answered at once with the length a GET declares.
 */
public final class ImageServer implements AutoCloseable {
    /** How a path answers. */
    private interface Answer {
        void respond(HttpExchange exchange) throws IOException;
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> gets = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> heads = new ConcurrentHashMap<>();
    private final Set<String> getClients = ConcurrentHashMap.newKeySet();

    private final String host;

    public ImageServer() throws IOException {
        this(InetAddress.getLoopbackAddress());
    }

    /** A server on {@code address}, an IPv4 address of this machine, such as the stack's veth toward its jump host. */
    public ImageServer(InetAddress address) throws IOException {
        server = HttpServer.create(new InetSocketAddress(address, 0), 16);
        host = address.isLoopbackAddress() ? "127.0.0.1" : address.getHostAddress();
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
    }

    /** The URL of {@code path} on this server. */
    public String url(String path) {
        return "http://" + host + ":" + server.getAddress().getPort() + path;
    }

    /** Serves {@code content} with its Content-Length; HEAD answers with the length only. */
    public ImageServer serve(String path, byte[] content) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, content.length)) {
                return;
            }
            // -1 sends "Content-Length: 0"; 0 would mean chunked to this server.
            exchange.sendResponseHeaders(200, content.length == 0 ? -1 : content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
        return this;
    }

    /**
     * Announces an image of {@code length} bytes to HEAD and GET alike but sends none of it: an image
     * larger than any pool, for size probes; a GET gets a body cut off at once.
     */
    public ImageServer announce(String path, long length) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, length)) {
                return;
            }
            exchange.sendResponseHeaders(200, length);
            // Closing the exchange with every byte missing makes the server drop the connection.
            exchange.close();
        });
        return this;
    }

    /**
     * Serves the file {@code file} with its Content-Length, streamed from disk rather than held in
     * memory on every GET (so guest images and benchmarks can serve gigabytes); HEAD answers with the
     * length only.
     */
    public ImageServer serveFile(String path, Path file) {
        answers.put(path, exchange -> {
            long length = Files.size(file);
            if (answeredHead(exchange, length)) {
                return;
            }
            exchange.sendResponseHeaders(200, length == 0 ? -1 : length);
            try (InputStream in = Files.newInputStream(file); OutputStream body = exchange.getResponseBody()) {
                in.transferTo(body);
            }
        });
        return this;
    }

    /** Serves {@code content} after {@code release} opens: for tests of concurrent downloads. */
    public ImageServer serveAfter(String path, byte[] content, CountDownLatch release) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, content.length)) {
                return;
            }
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
        return this;
    }

    /** Serves {@code content} chunked, so without a Content-Length. */
    public ImageServer serveWithoutLength(String path, byte[] content) {
        answers.put(path, exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
        return this;
    }

    /** Declares {@code content}'s length but sends only its first {@code sent} bytes, then drops the connection. */
    public ImageServer serveCutOff(String path, byte[] content, int sent) {
        return serveCutOffAfter(path, content, sent, Duration.ZERO);
    }

    /**
     * Like {@link #serveCutOff}, but drops the connection only {@code pause} after the first bytes
     * went out: the client has then surely handed the response over and is reading the body. Cut off
     * at once, the JDK client may fail the request itself before it returns the response, which is
     * a real but different failure ("could not fetch"), so a test of a body that ends early needs
     * the pause to test what it says.
     */
    public ImageServer serveCutOffAfter(String path, byte[] content, int sent, Duration pause) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, content.length)) {
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            OutputStream body = exchange.getResponseBody();
            body.write(content, 0, sent);
            body.flush();
            if (!pause.isZero()) {
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            // Closing the exchange with bytes missing makes the server drop the connection.
            exchange.close();
        });
        return this;
    }

    /** Declares {@code content}'s length, sends its first {@code sent} bytes and then nothing, for a while. */
    public ImageServer serveStalled(String path, byte[] content, int sent, CountDownLatch release) {
        return serveStalled(path, content, sent, new CountDownLatch(1), release);
    }

    /**
     * Like {@link #serveStalled(String, byte[], int, CountDownLatch)}; opens {@code stalled} once the
     * first bytes are sent.
     */
    public ImageServer serveStalled(String path, byte[] content, int sent, CountDownLatch stalled,
                                    CountDownLatch release) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, content.length)) {
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            OutputStream body = exchange.getResponseBody();
            body.write(content, 0, sent);
            body.flush();
            stalled.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            exchange.close();
        });
        return this;
    }

    /**
     * Answers neither HEAD nor GET until {@code release} opens: a server that accepted the request
     * and stalls; opens {@code stalled} when a request arrives.
     */
    public ImageServer serveNothing(String path, CountDownLatch stalled, CountDownLatch release) {
        answers.put(path, exchange -> {
            stalled.countDown();
            awaitRelease(release);
        });
        return this;
    }

    /**
     * Answers HEAD with {@code length} at once, and a GET with nothing (not even its headers) until
     * {@code release} opens; opens {@code stalled} when a GET arrives.
     */
    public ImageServer serveHeadOnly(String path, long length, CountDownLatch stalled, CountDownLatch release) {
        answers.put(path, exchange -> {
            if (!answeredHead(exchange, length)) {
                stalled.countDown();
                awaitRelease(release);
            }
        });
        return this;
    }

    private static void awaitRelease(CountDownLatch release) {
        try {
            release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Declares {@code content}'s length, sends its first {@code sent} bytes, waits for
     * {@code release}, then sends the rest: a download that is under way while a test acts.
     */
    public ImageServer serveInTwoParts(String path, byte[] content, int sent, CountDownLatch release) {
        answers.put(path, exchange -> {
            if (answeredHead(exchange, content.length)) {
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content, 0, sent);
                body.flush();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                body.write(content, sent, content.length - sent);
            }
        });
        return this;
    }

    /** Answers with {@code status} and a small body, optionally with extra headers. */
    public ImageServer status(String path, int status, String... headerNamesAndValues) {
        answers.put(path, exchange -> {
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
        return this;
    }

    /** Refuses HEAD with 405 and serves GET with {@code content}. */
    public ImageServer serveWithoutHead(String path, byte[] content) {
        answers.put(path, exchange -> {
            if (isHead(exchange)) {
                exchange.sendResponseHeaders(405, -1);
                exchange.close();
                return;
            }
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
        return this;
    }

    /** Serves {@code content} gzip-labelled, as a server that ignores Accept-Encoding would. */
    public ImageServer serveEncoded(String path, byte[] content) {
        answers.put(path, exchange -> {
            exchange.getResponseHeaders().add("Content-Encoding", "gzip");
            exchange.sendResponseHeaders(200, content.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(content);
            }
        });
        return this;
    }

    /** How many GET requests {@code path} received. */
    public int gets(String path) {
        return gets.getOrDefault(path, new AtomicInteger()).get();
    }

    /** How many HEAD requests {@code path} received. */
    public int heads(String path) {
        return heads.getOrDefault(path, new AtomicInteger()).get();
    }

    /** The addresses GET requests came from, such as the test stack's jump namespace's. */
    public Set<String> getClients() {
        return Set.copyOf(getClients);
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        (isHead(exchange) ? heads : gets).computeIfAbsent(path, unused -> new AtomicInteger()).incrementAndGet();
        if (!isHead(exchange)) {
            getClients.add(exchange.getRemoteAddress().getAddress().getHostAddress());
        }
        Answer answer = answers.get(path);
        try {
            if (answer == null) {
                exchange.sendResponseHeaders(404, -1);
            } else {
                answer.respond(exchange);
            }
        } finally {
            exchange.close();
        }
    }

    /**
     * Answers a HEAD with the length a GET would declare (this server needs it set by hand);
     * whether it was one.
     */
    private static boolean answeredHead(HttpExchange exchange, long length) throws IOException {
        if (!isHead(exchange)) {
            return false;
        }
        exchange.getResponseHeaders().set("Content-length", Long.toString(length));
        exchange.sendResponseHeaders(200, -1);
        return true;
    }

    private static boolean isHead(HttpExchange exchange) {
        return exchange.getRequestMethod().equals("HEAD");
    }
}
