package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
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
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl serve}'s status page in a real browser: serve runs as its own process on a
 * file-backed fake entry with six proxies over two zones; once they all run, headless Chromium
 * loads {@code /}, and the rows, hosts and revision it rendered must be what the API says. The
 * screenshot stays in {@code target/artifacts/serve-status-page.png}, the DOM beside it. Tagged
 * {@code integration}: it needs the packaged distribution and Debian's {@code chromium}.
 */
@Tag("integration")
class ServeStatusPageBrowserTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PROXIES = 6;
    /** Generous for a JVM start, six creates and a first pass on a busy two-core machine. */
    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    /** Page time for the page's first fetches; it refreshes every 5 s, so this renders once. */
    private static final Duration PAGE_TIME = Duration.ofSeconds(3);
    private static final Pattern SERVING = Pattern.compile("serving (http://127\\.0\\.0\\.1:\\d+/)");

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

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
        EgressctlProcess.Running serve = egressctl.start("--config", config.toString(), "serve", "-f",
                desired.toString(), "--listen", "127.0.0.1:0", "--resync", "5s", "--grace", "10s");
        Throwable failed = null;
        try {
            URI base = URI.create(awaitLine(serve, SERVING).group(1));
            await("/readyz answers 200", serve, () -> status(base.resolve("readyz")), code -> code == 200);
            await("all " + PROXIES + " proxies RUNNING in /v1/proxies", serve,
                    () -> get(base.resolve("v1/proxies")), ServeStatusPageBrowserTest::allRunning);

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
            JsonNode proxies = get(base.resolve("v1/proxies"));
            List<Map<String, String>> expected = new ArrayList<>();
            for (JsonNode proxy : proxies.get("proxies")) {
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

            JsonNode set = get(base.resolve("v1/desired"));
            assertThat(shown.text("revision")).isEqualTo(set.get("revision").asText());
            assertThat(shown.attributesOf("problems")).containsEntry("data-problems", "0");
            assertThat(shown.hidden("problems")).as("the rejected-edit banner is hidden").isTrue();
            assertThat(shown.hidden("unreachable")).as("the API-unreachable banner is hidden").isTrue();

            Map<String, String> hostsReported = new LinkedHashMap<>();
            for (JsonNode entry : get(base.resolve("v1/entries")).get("entries")) {
                for (JsonNode host : entry.get("hosts")) {
                    hostsReported.put(entry.get("name").asText() + "/" + host.get("zone").asText(),
                            host.get("up").asText());
                }
            }
            assertThat(shown.hostsUp()).as("hosts and link health on the page").isEqualTo(hostsReported)
                    .containsEntry("lab/zone-a", "true").containsEntry("lab/zone-b", "true");
        } catch (Throwable e) {
            failed = e;
            throw e;
        } finally {
            stop(serve, failed);
        }
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

    /**
     * SIGTERM, as systemd stops it: serve finishes in-flight work and exits 0. After an earlier
     * failure, a failure here is added to it rather than hiding it.
     */
    private static void stop(EgressctlProcess.Running serve, Throwable earlier) {
        Process process = serve.process();
        if (!process.isAlive() && earlier != null) {
            return;
        }
        process.destroy();
        try {
            EgressctlProcess.Result stopped = serve.await();
            assertThat(stopped.exitCode()).as("serve's exit code after SIGTERM\n" + stopped).isZero();
        } catch (AssertionError e) {
            if (earlier == null) {
                throw e;
            }
            earlier.addSuppressed(e);
        } finally {
            if (process.isAlive()) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        }
    }

    /** Waits for serve to print a line matching {@code pattern} on standard error. */
    private static Matcher awaitLine(EgressctlProcess.Running serve, Pattern pattern) {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (true) {
            String err = read(serve.err());
            Matcher matcher = pattern.matcher(err);
            if (matcher.find()) {
                return matcher;
            }
            if (!serve.process().isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("serve printed no line matching " + pattern + " (it "
                        + (serve.process().isAlive() ? "is still running" : "exited " + serve.process().exitValue())
                        + ")\n--- out\n" + read(serve.out()) + "--- err\n" + err);
            }
            pause();
        }
    }

    /** Polls {@code probe} until {@code done} holds, failing with serve's output when it exits or time runs out. */
    private static <T> T await(String what, EgressctlProcess.Running serve, Supplier<T> probe, Predicate<T> done) {
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        T last = null;
        Exception failure = null;
        while (System.nanoTime() < deadline && serve.process().isAlive()) {
            try {
                last = probe.get();
                failure = null;
                if (done.test(last)) {
                    return last;
                }
            } catch (UncheckedIOException e) {
                failure = e;
            }
            pause();
        }
        throw new AssertionError("waited in vain for " + what + "; last seen: " + last
                + (failure == null ? "" : " (" + failure.getMessage() + ")") + "\n--- serve's err\n" + read(serve.err()),
                failure);
    }

    private int status(URI uri) {
        return send(uri).statusCode();
    }

    private JsonNode get(URI uri) {
        HttpResponse<String> response = send(uri);
        if (response.statusCode() != 200) {
            throw new UncheckedIOException(new IOException(uri + " answered " + response.statusCode() + ": "
                    + response.body()));
        }
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> send(URI uri) {
        try {
            return http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
