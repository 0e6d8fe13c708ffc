package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl serve}'s status page in a real browser: serve runs as its own process on a
 * file-backed fake entry with six proxies over two zones; once they all run, headless Chromium
 * loads {@code /}, and the rows, hosts and revision it rendered must be what the API says. The
 * screenshot stays in {@code target/artifacts/serve-status-page.png}, the DOM beside it. The
 * answers the page reads must also match docs/serve-api.yaml. Tagged
 * {@code integration}: it needs the packaged distribution and Debian's {@code chromium}.
 */
@Tag("integration")
class ServeStatusPageBrowserTest {
    private static final int PROXIES = 6;
    /** Generous for a JVM start, six creates and a first pass on a busy two-core machine. */
    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    /** Page time for the page's first fetches; it refreshes every 5 s, so this renders once. */
    private static final Duration PAGE_TIME = Duration.ofSeconds(3);

    @TempDir
    Path temp;
    Path work;
    Path config;
    Path desired;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        config = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    machineTypes: [small]
                    images: [debian-12]
                    stateFile: %s
                """.formatted(temp.resolve("state/lab.json")));
        StringBuilder set = new StringBuilder("proxies:\n");
        IntStream.rangeClosed(1, PROXIES).forEach(n -> set.append("""
                  - name: egress-%d
                    provider: lab
                    zone: %s
                    machineType: small
                    image: debian-12
                """.formatted(n, n % 2 == 1 ? "zone-a" : "zone-b")));
        desired = Files.writeString(work.resolve("proxies.yaml"), set.toString());
        egressctl = new EgressctlProcess(home, work).withTimeout(Duration.ofSeconds(60));
    }

    @Test
    void thePageShowsTheProxiesHostsAndRevisionTheApiReports() throws IOException {
        HeadlessChromium chromium = HeadlessChromium.find();
        try (ServeProcess serve = ServeProcess.start(egressctl, "--config", config.toString(), "serve", "-f",
                desired.toString(), "--listen", "127.0.0.1:0", "--resync", "5s", "--grace", "10s")) {
            Throwable failed = null;
            try {
                awaitReady(serve);
                serve.await("/v1/proxies", START_LIMIT, "all " + PROXIES + " proxies RUNNING",
                        ServeStatusPageBrowserTest::allRunning);
                checkPage(chromium, serve);
                checkDocumented(serve);
            } catch (Throwable e) {
                failed = e;
                throw e;
            } finally {
                stop(serve, failed);
            }
        }
    }

    private static void checkPage(HeadlessChromium chromium, ServeProcess serve) throws IOException {
        URI base = URI.create(serve.base() + "/");
        HeadlessChromium.Page page = chromium.dumpDom(base, PAGE_TIME);
        String dom = page.dom();
        Path artifacts = Files.createDirectories(Path.of(System.getProperty("user.dir"), "target", "artifacts"));
        Files.writeString(artifacts.resolve("serve-status-page.html"), dom, StandardCharsets.UTF_8);
        chromium.screenshot(base, PAGE_TIME, artifacts.resolve("serve-status-page.png"), 1280, 900);
        // A blocked script (its policy hash out of date) or an exception leaves the page empty:
        // say so first, rather than only that rows are missing.
        assertThat(page.console()).as("the page's console messages")
                .noneMatch(line -> line.contains("Content Security Policy") || line.contains("Uncaught"));

        // Names, states, IDs and addresses no longer change once all run: the API still says
        // what the page read.
        List<Map<String, String>> expected = new ArrayList<>();
        for (JsonNode proxy : serve.get("/v1/proxies").get("proxies")) {
            expected.add(Map.of("proxy", proxy.get("entry").asText() + "/" + proxy.get("name").asText(),
                    "state", proxy.get("state").asText(), "id", proxy.get("id").asText(),
                    "zone", proxy.get("observed").get("zone").asText(),
                    "ip", proxy.get("observed").get("ip").asText()));
        }
        StatusPageDom shown = new StatusPageDom(dom);
        List<Map<String, String>> rendered = new ArrayList<>();
        for (StatusPageDom.Row row : shown.rows()) {
            rendered.add(Map.of("proxy", row.attribute("data-proxy"), "state", row.attribute("data-state"),
                    "id", row.cell("id"), "zone", row.cell("zone"), "ip", row.cell("ip")));
            assertThat(row.cell("state")).as("the state cell's text").contains(row.attribute("data-state"));
            assertThat(row.cell("name")).isEqualTo(row.attribute("data-name"));
        }
        assertThat(rendered).as("the page's rows, in the API's order").isEqualTo(expected);
        assertThat(expected).hasSize(PROXIES);

        assertThat(shown.text("revision")).isEqualTo(serve.get("/v1/desired").get("revision").asText());
        assertThat(shown.attributesOf("problems")).containsEntry("data-problems", "0");
        assertThat(shown.hidden("problems")).as("the rejected-edit banner is hidden").isTrue();
        assertThat(shown.hidden("unreachable")).as("the API-unreachable banner is hidden").isTrue();

        Map<String, String> hostsReported = new LinkedHashMap<>();
        for (JsonNode entry : serve.get("/v1/entries").get("entries")) {
            for (JsonNode host : entry.get("hosts")) {
                hostsReported.put(entry.get("name").asText() + "/" + host.get("zone").asText(), host.get("up").asText());
            }
        }
        assertThat(shown.hostsUp()).as("hosts and link health on the page").isEqualTo(hostsReported)
                .containsEntry("lab/zone-a", "true").containsEntry("lab/zone-b", "true");
    }

    /** The answers the page reads, and an error, as docs/serve-api.yaml describes them. */
    private static void checkDocumented(ServeProcess serve) throws IOException {
        OpenApiDocument api = OpenApiDocument.serveApi();
        assertThat(api.violations("ProxyList", serve.get("/v1/proxies"))).as("GET /v1/proxies").isEmpty();
        assertThat(api.violations("Proxy", serve.get("/v1/proxies/lab/egress-1"))).as("GET /v1/proxies/lab/egress-1")
                .isEmpty();
        assertThat(api.violations("EntryList", serve.get("/v1/entries"))).as("GET /v1/entries").isEmpty();
        assertThat(api.violations("Desired", serve.get("/v1/desired"))).as("GET /v1/desired").isEmpty();
        HttpResponse<String> missing = serve.send("GET", "/v1/proxies/lab/nothing");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(api.violations("Error", new ObjectMapper().readTree(missing.body()))).as("a 404's body").isEmpty();
    }

    private static boolean allRunning(JsonNode list) {
        JsonNode proxies = list.get("proxies");
        if (proxies == null || proxies.size() != PROXIES) {
            return false;
        }
        for (JsonNode proxy : proxies) {
            if (!"RUNNING".equals(proxy.path("state").asText()) || proxy.path("observed").path("ip").asText().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private static void awaitReady(ServeProcess serve) {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        HttpResponse<String> last = null;
        while (System.nanoTime() < deadline && serve.process().isAlive()) {
            last = serve.send("GET", "/readyz");
            if (last.statusCode() == 200) {
                return;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        throw new AssertionError("serve did not become ready; last /readyz: "
                + (last == null ? "none" : last.statusCode() + " " + last.body()) + "\n--- serve's err\n" + serve.err());
    }

    /**
     * SIGTERM, as systemd stops it: serve finishes in-flight work and exits 0. After an earlier
     * failure, a failure here is added to it rather than hiding it.
     */
    private static void stop(ServeProcess serve, Throwable earlier) {
        try {
            serve.signal("TERM");
            EgressctlProcess.Result stopped = serve.awaitExit(Duration.ofSeconds(30));
            assertThat(stopped.exitCode()).as("serve's exit code after SIGTERM\n" + stopped).isZero();
        } catch (AssertionError e) {
            if (earlier == null) {
                throw e;
            }
            earlier.addSuppressed(e);
        }
    }
}
