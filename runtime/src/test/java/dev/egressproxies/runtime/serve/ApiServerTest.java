package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ApiServerTest {
    private static final String TOKEN = "a-token-long-enough-to-use";
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    @TempDir
    Path folder;

    private HttpResponse<String> send(int port, String method, String path, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).method(method, HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private ApiServer server(ServeFixture serve, boolean withToken, boolean tokenForReads) throws Exception {
        BearerToken token = withToken ? BearerToken.read(Files.writeString(folder.resolve("token"), TOKEN)) : null;
        ApiServer server = new ApiServer(new InetSocketAddress("127.0.0.1", 0), null,
                new ApiHandler(serve.reconciler, serve.metrics, token, tokenForReads, Optional::empty,
                        FleetPeers.NONE));
        server.start();
        return server;
    }

    @Test
    void servesTheProxiesEntriesDesiredSetProbesAndMetrics() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2"));
            serve.start(Duration.ofHours(1));
            ServeFixture.await("running", () -> serve.reconciler.proxies().size() == 2 && serve.reconciler.proxies()
                    .stream().allMatch(view -> view.state() == ProxyState.RUNNING));
            try (ApiServer server = server(serve, false, false)) {
                JsonNode proxies = json.readTree(send(server.port(), "GET", "/v1/proxies", null).body());
                assertThat(proxies.path("desiredRevision").asText()).startsWith("sha256:");
                assertThat(proxies.path("proxies")).hasSize(2);
                JsonNode first = proxies.path("proxies").get(0);
                assertThat(first.path("id").asText()).isEqualTo("lab/zone-a/p1");
                assertThat(first.path("state").asText()).isEqualTo("RUNNING");
                assertThat(first.path("observed").path("ip").asText()).isNotEmpty();
                assertThat(first.path("desired").path("userDataSha256").asText()).hasSize(64);

                HttpResponse<String> one = send(server.port(), "GET", "/v1/proxies/lab/p2", null);
                assertThat(one.statusCode()).isEqualTo(200);
                assertThat(json.readTree(one.body()).path("observed").path("zone").asText()).isEqualTo("zone-b");
                assertThat(send(server.port(), "GET", "/v1/proxies/lab/nope", null).statusCode()).isEqualTo(404);

                JsonNode entries = json.readTree(send(server.port(), "GET", "/v1/entries", null).body());
                assertThat(entries.path("entries").get(0).path("hosts")).hasSize(2);
                assertThat(send(server.port(), "GET", "/healthz", null).body()).isEqualTo("ok\n");
                assertThat(send(server.port(), "GET", "/readyz", null).statusCode()).isEqualTo(200);
                String metrics = send(server.port(), "GET", "/metrics", null).body();
                assertThat(metrics).contains("egress_proxies{entry=\"lab\",state=\"running\"} 2.0")
                        .contains("egress_host_link_up{entry=\"lab\",host=\"zone-a\"} 1.0")
                        .contains("egress_operations_total{action=\"create\",entry=\"lab\",outcome=\"ok\"} 2.0");
                assertThat(send(server.port(), "GET", "/", null).headers().firstValue("Content-Type").orElseThrow())
                        .startsWith("text/html");
                assertThat(send(server.port(), "POST", "/v1/reconcile", null).statusCode()).isEqualTo(202);
                assertThat(send(server.port(), "POST", "/v1/reconcile?entry=nope", null).statusCode()).isEqualTo(404);
                assertThat(send(server.port(), "DELETE", "/v1/proxies", null).statusCode()).isEqualTo(405);
                assertThat(send(server.port(), "GET", "/v1/nothing", null).statusCode()).isEqualTo(404);
            }
        }
    }

    @Test
    void theProxiesDocumentFollowsEveryChangeOfAViewOrOfTheDesiredSet() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2"));
            serve.start(Duration.ofHours(1));
            ServeFixture.await("running", () -> serve.reconciler.proxies().size() == 2 && serve.reconciler.proxies()
                    .stream().allMatch(view -> view.state() == ProxyState.RUNNING));
            try (ApiServer server = server(serve, false, false)) {
                String first = send(server.port(), "GET", "/v1/proxies", null).body();
                assertThat(send(server.port(), "GET", "/v1/proxies", null).body()).as("nothing changed").isEqualTo(first);

                serve.context.status().update(ServeFixture.ENTRY, "p1", view -> view.failed("boom", null,
                        view.lastReconcile(), null));
                JsonNode failed = json.readTree(send(server.port(), "GET", "/v1/proxies", null).body());
                assertThat(failed.path("proxies").get(0).path("error").asText()).isEqualTo("boom");

                serve.desire(List.of("p1", "p2", "p3"));
                // Not left to the file watch, which a loaded machine can slow past the wait.
                serve.reconciler.resync();
                ServeFixture.await("p3 shown", () -> {
                    try {
                        JsonNode now = json.readTree(send(server.port(), "GET", "/v1/proxies", null).body());
                        return now.path("proxies").size() == 3
                                && !now.path("desiredRevision").asText().equals(failed.path("desiredRevision").asText());
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
            }
        }
    }

    @Test
    void withATokenWritesNeedItAndReadsOnLoopbackDoNot() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(Duration.ofHours(1));
            try (ApiServer server = server(serve, true, false)) {
                HttpResponse<String> refused = send(server.port(), "POST", "/v1/reconcile", null);
                assertThat(refused.statusCode()).isEqualTo(401);
                assertThat(refused.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(value ->
                        assertThat(value).startsWith("Bearer"));
                assertThat(send(server.port(), "POST", "/v1/reconcile", "wrong-token-wrong-token").statusCode())
                        .isEqualTo(401);
                assertThat(send(server.port(), "POST", "/v1/reconcile", TOKEN).statusCode()).isEqualTo(202);
                assertThat(send(server.port(), "GET", "/v1/proxies", null).statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void beyondLoopbackReadsNeedTheTokenButProbesAndThePageDoNot() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(Duration.ofHours(1));
            try (ApiServer server = server(serve, true, true)) {
                assertThat(send(server.port(), "GET", "/v1/proxies", null).statusCode()).isEqualTo(401);
                assertThat(send(server.port(), "GET", "/metrics", null).statusCode()).isEqualTo(401);
                assertThat(send(server.port(), "GET", "/v1/proxies", TOKEN).statusCode()).isEqualTo(200);
                assertThat(send(server.port(), "GET", "/healthz", null).statusCode()).isEqualTo(200);
                assertThat(send(server.port(), "GET", "/", null).statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void aClientTricklingItsHeadersDoesNotHoldUpOthers() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(Duration.ofHours(1));
            try (ApiServer server = server(serve, false, false)) {
                List<Socket> slow = new java.util.ArrayList<>();
                for (int index = 0; index < 40; index++) {
                    Socket socket = new Socket("127.0.0.1", server.port());
                    socket.getOutputStream().write("GET /v1/proxies HTTP/1.1\r\nHost: x\r\nX-Slow: ".getBytes(
                            StandardCharsets.US_ASCII));
                    slow.add(socket);
                }
                for (int second = 0; second < 3; second++) {
                    for (Socket socket : slow) {
                        OutputStream out = socket.getOutputStream();
                        out.write('a');
                        out.flush();
                    }
                    long started = System.nanoTime();
                    assertThat(send(server.port(), "GET", "/v1/proxies", null).statusCode()).isEqualTo(200);
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
                    Thread.sleep(1000);
                }
                for (Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void anotherSitesPageCannotActAndARebindingHostIsRefused() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(Duration.ofHours(1));
            try (ApiServer server = server(serve, false, false)) {
                String own = "http://127.0.0.1:" + server.port();
                assertThat(raw(server.port(), "POST /v1/deletions/confirm?entry=lab", "127.0.0.1",
                        "Origin: http://evil.example\r\n")).startsWith("HTTP/1.1 403");
                assertThat(raw(server.port(), "POST /v1/reconcile", "127.0.0.1", "Sec-Fetch-Site: cross-site\r\n"))
                        .startsWith("HTTP/1.1 403");
                assertThat(raw(server.port(), "POST /v1/reconcile", "127.0.0.1:" + server.port(), "Origin: " + own
                        + "\r\nSec-Fetch-Site: same-origin\r\n")).startsWith("HTTP/1.1 202");
                assertThat(raw(server.port(), "GET /v1/proxies", "rebind.evil.example", ""))
                        .startsWith("HTTP/1.1 421");
                assertThat(raw(server.port(), "GET /v1/proxies", "localhost:" + server.port(), ""))
                        .startsWith("HTTP/1.1 200");
            }
        }
    }

    /** One request over a plain socket, with a Host of the test's choosing; returns the response head. */
    private static String raw(int port, String requestLine, String host, String headers) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write((requestLine + " HTTP/1.1\r\nHost: " + host + "\r\n" + headers
                    + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void theProxiesAreSentGzippedToClientsThatAsk() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1", "p2"));
            serve.start(Duration.ofHours(1));
            ServeFixture.await("two", () -> serve.reconciler.proxies().size() == 2);
            try (ApiServer server = server(serve, false, false)) {
                HttpResponse<byte[]> zipped = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.port() + "/v1/proxies")).header("Accept-Encoding", "gzip").build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
                String body = new String(new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(
                        zipped.body())).readAllBytes(), StandardCharsets.UTF_8);
                assertThat(body).isEqualTo(send(server.port(), "GET", "/v1/proxies", null).body());
            }
        }
    }

    @Test
    void anOversizedHeaderIsRefused() throws Exception {
        try (ServeFixture serve = new ServeFixture(folder)) {
            serve.desire(List.of("p1"));
            serve.start(Duration.ofHours(1));
            try (ApiServer server = server(serve, false, false)) {
                HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + server.port() + "/v1/proxies")).header("X-Big", "a".repeat(ApiServer.MAX_HEADER_BYTES + 10))
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(431);
            }
        }
    }
}
