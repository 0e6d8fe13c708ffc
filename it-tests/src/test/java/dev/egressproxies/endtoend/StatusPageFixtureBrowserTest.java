package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * serve's status page in headless Chromium against fixed API answers, for the states a healthy
 * {@code serve} in a test rarely shows: a rejected edit, a host down, a held delete, failures with
 * backoff, an API that errs, stops answering or asks for a token, and text that looks like HTML.
 * The page is the one the runtime's jar ships; screenshots go to {@code target/artifacts}.
 * Tagged {@code integration}: it needs Debian's {@code chromium}.
 */
@Tag("integration")
class StatusPageFixtureBrowserTest {
    private static final String PAGE = "/dev/egressproxies/runtime/serve/status.html";
    private static final String HOSTILE = "<img src=x onerror=\"document.title='owned'\"> & <b>bold</b>";
    /** Enough page time for the first load; the page refreshes every 5 s. */
    private static final Duration ONE_LOAD = Duration.ofSeconds(3);

    private final Map<String, Answer> answers = new ConcurrentHashMap<>();
    private final AtomicInteger apiCalls = new AtomicInteger();
    /** After this many API calls, the server drops each connection unanswered. */
    private volatile int answeredCalls = Integer.MAX_VALUE;
    private HttpServer server;
    private URI base;
    private HeadlessChromium chromium;
    private byte[] page;

    private record Answer(int status, String type, String body) {
        static Answer json(String body) {
            return new Answer(200, "application/json", body);
        }
    }

    @BeforeEach
    void start() throws IOException {
        chromium = HeadlessChromium.find();
        try (InputStream in = StatusPageFixtureBrowserTest.class.getResourceAsStream(PAGE)) {
            assertThat(in).as("%s in the runtime's jar", PAGE).isNotNull();
            page = in.readAllBytes();
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::answer);
        server.start();
        base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
        answers.put("/readyz", new Answer(200, "text/plain", "ready\n"));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private void answer(HttpExchange exchange) throws IOException {
        try {
            String path = exchange.getRequestURI().getPath();
            Answer answer;
            if (path.equals("/")) {
                answer = new Answer(200, "text/html; charset=utf-8", new String(page, StandardCharsets.UTF_8));
            } else if (apiCalls.incrementAndGet() > answeredCalls) {
                return; // closed without a response: to the browser, the server is gone
            } else {
                answer = answers.getOrDefault(path, new Answer(404, "application/json", "{\"error\": \"no such path\"}"));
            }
            byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", answer.type());
            exchange.sendResponseHeaders(answer.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            exchange.close();
        }
    }

    @Test
    void aTroubledFleetShowsEveryProblemAndTextThatLooksLikeHtmlStaysText() throws IOException {
        troubledFleet();
        answers.put("/readyz", new Answer(503, "text/plain", "not ready: the first pass of entry lab has not finished\n"));

        HeadlessChromium.Page loaded = load(ONE_LOAD, "status-page-troubled.png", 1280, 1000);
        StatusPageDom shown = new StatusPageDom(loaded.dom());

        assertThat(loaded.dom()).as("no element made of API text")
                .doesNotContain("<img src=").doesNotContain("<b>bold").contains("&lt;img src=x");
        assertThat(loaded.dom()).contains("<title>egress-proxies status (desired set rejected)</title>");

        assertThat(shown.hidden("problems")).as("the rejected-edit banner is hidden").isFalse();
        assertThat(shown.text("problems-title")).contains("/etc/egress/proxies.yaml was rejected")
                .contains("sha256:3f1a9c0b7e21");
        assertThat(shown.texts("li", "data-problem"))
                .containsExactly("proxies[3].zone: zone-z is not a zone of entry lab (zone-a, zone-b)", HOSTILE);
        assertThat(shown.attributesOf("readiness")).containsEntry("data-ready", "false");
        assertThat(shown.text("readiness-reason")).isEqualTo("the first pass of entry lab has not finished");

        assertThat(shown.hostsUp()).containsExactly(Map.entry("lab/zone-a", "true"), Map.entry("lab/zone-b", "false"));
        assertThat(shown.hostTexts().get("lab/zone-a")).as("a cordoned host").contains("cordoned");
        assertThat(shown.hostTexts().get("lab/zone-b")).doesNotContain("cordoned");
        assertThat(shown.hostTexts().get("lab/zone-b")).contains("link down").contains("down since")
                .contains("(5 min ago)").contains("ssh dial failed: " + HOSTILE);
        assertThat(loaded.dom()).contains("data-pending-deletes=\"1\"").contains("lab/zone-a/old-7")
                .contains("POST /v1/deletions/confirm?entry=lab");

        List<StatusPageDom.Row> rows = shown.rows();
        assertThat(rows).extracting(row -> row.attribute("data-proxy") + " " + row.attribute("data-state") + " "
                + row.attribute("data-outcome")).containsExactly(
                        "lab/egress-1 RUNNING ok",
                        "lab/egress-2 UNKNOWN waiting",
                        "lab/egress-3 STOPPED failed",
                        "lab/old-7 RUNNING held");
        StatusPageDom.Row failed = rows.get(2);
        assertThat(failed.cell("error")).isEqualTo("QUOTA_EXCEEDED start failed: " + HOSTILE);
        assertThat(failed.cell("attempts")).isEqualTo("3");
        assertThat(failed.cell("nextAttempt")).matches("in \\d+ s");
        assertThat(failed.cell("outcome")).isEqualTo("start failed");
        assertThat(failed.cell("ip")).isEqualTo("198.51.100.4");
        assertThat(rows.get(0).cell("lastReconcile")).matches("\\d+ s ago");
        assertThat(rows.get(1).cell("ip")).as("no address known").isEmpty();
        assertThat(rows.get(1).cell("id")).as("no instance seen").isEmpty();
        assertThat(rows.get(3).attribute("class")).isEqualTo("undesired");
        assertThat(rows.get(3).cell("name")).isEqualTo("old-7 not desired");

        assertThat(shown.hidden("unreachable")).isTrue();
        assertThat(shown.hidden("token-needed")).isTrue();
        assertThat(loaded.console()).noneMatch(line -> line.contains("Uncaught") || line.contains("Content Security Policy"));
    }

    @Test
    void theFixedAnswersAreShapedAsTheApiDocumentSays() throws IOException {
        troubledFleet();
        OpenApiDocument api = OpenApiDocument.serveApi();
        ObjectMapper json = new ObjectMapper();

        assertThat(api.violations("ProxyList", json.readTree(answers.get("/v1/proxies").body()))).isEmpty();
        assertThat(api.violations("EntryList", json.readTree(answers.get("/v1/entries").body()))).isEmpty();
        assertThat(api.violations("Desired", json.readTree(answers.get("/v1/desired").body()))).isEmpty();
    }

    @Test
    void anApiThatStopsAnsweringLeavesTheLastDataUnderABanner() throws IOException {
        troubledFleet();
        answeredCalls = 4; // the first refresh's four requests

        HeadlessChromium.Page loaded = load(Duration.ofSeconds(8), "status-page-unreachable.png", 1280, 500);
        StatusPageDom shown = new StatusPageDom(loaded.dom());

        assertThat(shown.hidden("unreachable")).isFalse();
        assertThat(shown.text("unreachable-title")).isEqualTo("The API cannot be reached.");
        assertThat(shown.text("unreachable-detail")).contains("Showing what it said at");
        assertThat(shown.rows()).as("the last answer's rows stay").hasSize(4);
    }

    @Test
    void anApiErrorIsNamed() throws IOException {
        troubledFleet();
        answers.put("/v1/entries", new Answer(500, "application/json", "{\"error\": \"the reconciler stopped\"}"));

        StatusPageDom shown = new StatusPageDom(load(ONE_LOAD, null, 0, 0).dom());

        assertThat(shown.hidden("unreachable")).isFalse();
        assertThat(shown.text("unreachable-title")).isEqualTo("The API answered with an error.");
        assertThat(shown.text("unreachable-detail")).isEqualTo("v1/entries answered 500: the reconciler stopped.");
    }

    @Test
    void aServerThatNeedsATokenAsksForIt() throws IOException {
        Answer refused = new Answer(401, "application/json", "{\"error\": \"this needs the API token\"}");
        for (String path : List.of("/v1/desired", "/v1/entries", "/v1/proxies")) {
            answers.put(path, refused);
        }

        StatusPageDom shown = new StatusPageDom(load(ONE_LOAD, "status-page-token.png", 1280, 400).dom());

        assertThat(shown.hidden("token-needed")).isFalse();
        assertThat(shown.hidden("token-refused")).as("no token was given yet").isTrue();
        assertThat(shown.hidden("unreachable")).isTrue();
        assertThat(shown.rows()).isEmpty();
    }

    /** Dumps the page after {@code pageTime}, and screenshots it into target/artifacts when {@code png} is given. */
    private HeadlessChromium.Page load(Duration pageTime, String png, int width, int height) throws IOException {
        HeadlessChromium.Page loaded = chromium.dumpDom(base, pageTime);
        if (png != null) {
            apiCalls.set(0); // the screenshot's load sees what the dump's saw
            Path artifacts = Files.createDirectories(Path.of(System.getProperty("user.dir"), "target", "artifacts"));
            chromium.screenshot(base, pageTime, artifacts.resolve(png), width, height);
        }
        return loaded;
    }

    /** Four proxies, one of each trouble, on an entry with a host down and a held delete. */
    private void troubledFleet() {
        Instant now = Instant.now();
        answers.put("/v1/desired", Answer.json("""
                {"file": "/etc/egress/proxies.yaml", "revision": "sha256:3f1a9c0b7e21", "loadedAt": "%s",
                 "problems": ["proxies[3].zone: zone-z is not a zone of entry lab (zone-a, zone-b)", %s],
                 "lastReadAt": "%s"}
                """.formatted(now.minusSeconds(1800), quoted(HOSTILE), now.minusSeconds(3))));
        answers.put("/v1/entries", Answer.json("""
                {"entries": [{"name": "lab", "type": "fake", "managed": 4, "desired": 3, "lastPass": "%1$s",
                  "pendingDeletes": ["lab/zone-a/old-7"],
                  "hosts": [
                    {"zone": "zone-a", "up": true, "checkedAt": "%1$s", "downSince": null, "error": null,
                     "cordoned": true},
                    {"zone": "zone-b", "up": false, "checkedAt": "%1$s", "downSince": "%2$s", "error": %3$s,
                     "cordoned": false}]}]}
                """.formatted(now.minusSeconds(10), now.minusSeconds(300), quoted("ssh dial failed: " + HOSTILE))));
        String spec = """
                {"zone": "%s", "machineType": "small", "image": "debian-12", "userDataSha256": ""}""";
        String seen = """
                {"zone": "%s", "state": "%s", "ip": "%s", "machineType": "small", "image": "debian-12", "createdAt": "%s"}""";
        answers.put("/v1/proxies", Answer.json("""
                {"desiredRevision": "sha256:3f1a9c0b7e21", "proxies": [
                 {"entry": "lab", "name": "egress-1", "id": "lab/zone-a/egress-1", "desired": %1$s, "observed": %2$s,
                  "state": "RUNNING", "action": "create", "outcome": "ok", "error": null, "errorKind": null,
                  "attempts": 0, "lastReconcile": "%7$s", "nextAttempt": null},
                 {"entry": "lab", "name": "egress-2", "id": "", "desired": %3$s, "observed": null,
                  "state": "UNKNOWN", "action": null, "outcome": "waiting", "error": "zone zone-b does not answer",
                  "errorKind": null, "attempts": 0, "lastReconcile": "%7$s", "nextAttempt": null},
                 {"entry": "lab", "name": "egress-3", "id": "lab/zone-a/egress-3", "desired": %1$s, "observed": %4$s,
                  "state": "STOPPED", "action": "start", "outcome": "failed", "error": %6$s,
                  "errorKind": "QUOTA_EXCEEDED", "attempts": 3, "lastReconcile": "%7$s", "nextAttempt": "%8$s"},
                 {"entry": "lab", "name": "old-7", "id": "lab/zone-a/old-7", "desired": null, "observed": %5$s,
                  "state": "RUNNING", "action": "delete", "outcome": "held", "error": null, "errorKind": null,
                  "attempts": 0, "lastReconcile": "%7$s", "nextAttempt": null}]}
                """.formatted(spec.formatted("zone-a"),
                        seen.formatted("zone-a", "RUNNING", "198.51.100.2", now.minusSeconds(3600)),
                        spec.formatted("zone-b"),
                        seen.formatted("zone-a", "STOPPED", "198.51.100.4", now.minusSeconds(3600)),
                        seen.formatted("zone-a", "RUNNING", "198.51.100.9", now.minusSeconds(7200)),
                        quoted("start failed: " + HOSTILE), now.minusSeconds(10), now.plusSeconds(40))));
    }

    /** {@code text} as a JSON string literal. */
    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
