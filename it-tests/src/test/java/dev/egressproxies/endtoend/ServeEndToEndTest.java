package dev.egressproxies.endtoend;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code egressctl serve} as its own process on a fake entry kept in a state file, which other
 * {@code egressctl} processes share: it converges, heals what another process deletes, follows
 * edits of the desired file, keeps the last good set when an edit is bad, holds back a mass delete
 * until confirmed over the API, refuses a second serve of the same file, logs JSON on request and
 * stops cleanly on SIGTERM.
 */
@Tag("integration")
class ServeEndToEndTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    @TempDir
    Path temp;
    Path work;
    Path desired;
    EgressctlProcess egressctl;

    @BeforeEach
    void prepare() throws IOException {
        Path home = Files.createDirectories(temp.resolve("home"));
        work = Files.createDirectories(temp.resolve("work"));
        Path config = Files.writeString(work.resolve("egress.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    zones: [zone-a, zone-b]
                    bootDelay: 1s
                    stateFile: %s/lab.json
                """.formatted(temp.resolve("state")));
        desired = work.resolve("proxies.yaml");
        egressctl = new EgressctlProcess(home, work).with("EGRESS_CONFIG", config.toString());
    }

    /** Writes the desired set as an editor does: a new file renamed over the old one. */
    private void desire(String... names) throws IOException {
        StringBuilder yaml = new StringBuilder("providers: [lab]\nproxies:" + (names.length == 0 ? " []" : "") + "\n");
        for (int index = 0; index < names.length; index++) {
            yaml.append("  - {name: ").append(names[index]).append(", provider: lab, zone: zone-")
                    .append(index % 2 == 0 ? "a" : "b").append(", machineType: small, image: debian-12}\n");
        }
        replace(yaml.toString());
    }

    private void replace(String content) throws IOException {
        Path next = work.resolve("proxies.yaml.next");
        Files.writeString(next, content);
        Files.move(next, desired, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static boolean allRunning(JsonNode proxies, int count) {
        return proxies.path("proxies").size() == count && StreamSupport.stream(proxies.path("proxies").spliterator(),
                false).allMatch(proxy -> proxy.path("state").asText().equals("RUNNING"));
    }

    private List<String> listedNames() throws IOException {
        EgressctlProcess.Result list = egressctl.run("list", "-o", "json");
        assertThat(list.exitCode()).as(list.toString()).isZero();
        List<String> names = new ArrayList<>();
        JSON.readTree(list.out()).forEach(instance -> names.add(instance.path("name").asText()));
        return names;
    }

    @Test
    void convergesHealsFollowsEditsKeepsTheLastGoodSetAndStopsCleanly() throws Exception {
        desire("p1", "p2", "p3");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0", "--resync", "2s")) {
            assertThat(serve.send("GET", "/readyz").statusCode()).isEqualTo(200);
            serve.await("/v1/proxies", CONVERGE, "three RUNNING", proxies -> allRunning(proxies, 3));
            assertThat(listedNames()).as("list beside serve").containsExactlyInAnyOrder("p1", "p2", "p3");

            EgressctlProcess.Result deleted = egressctl.run("delete", "lab/zone-b/p2");
            assertThat(deleted.exitCode()).as(deleted.toString()).isZero();
            serve.await("/v1/proxies", CONVERGE, "p2 recreated", proxies -> allRunning(proxies, 3)
                    && ServeProcess.proxy(proxies, "lab", "p2").path("lastReconcile").asText().compareTo(
                    Instant.now().minusSeconds(20).toString()) > 0);
            assertThat(serve.err()).contains("create lab/zone-b/p2: ok");

            desire("p1", "p2", "p3", "p4");
            serve.await("/v1/proxies", CONVERGE, "p4 made by the edit", proxies -> allRunning(proxies, 4));
            String revision = serve.get("/v1/desired").path("revision").asText();

            replace("proxies:\n  - {name: p1, provider: lab, zone: zone-q, machineType: small, image: debian-12}\n");
            JsonNode rejected = serve.await("/v1/desired", CONVERGE, "the bad edit's problems",
                    document -> document.path("problems").size() > 0);
            assertThat(rejected.path("revision").asText()).isEqualTo(revision);
            assertThat(rejected.path("problems").get(0).asText()).contains("zone-q");
            Thread.sleep(3000);
            assertThat(listedNames()).as("a bad edit changes nothing").hasSize(4);
            assertThat(serve.err()).contains("desired set rejected; the last good set stays in force");

            serve.signal("TERM");
            EgressctlProcess.Result stopped = serve.awaitExit(Duration.ofSeconds(30));
            assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
            assertThat(stopped.err()).contains("stopping", "stopped");
        }
    }

    @Test
    void aMassDeleteIsHeldUntilAnOperatorConfirmsIt() throws Exception {
        desire("p1", "p2", "p3", "p4");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0", "--resync", "2s")) {
            serve.await("/v1/proxies", CONVERGE, "four RUNNING", proxies -> allRunning(proxies, 4));

            desire("p1");
            JsonNode entries = serve.await("/v1/entries", CONVERGE, "three held deletes",
                    document -> document.path("entries").get(0).path("pendingDeletes").size() == 3);
            assertThat(entries.toString()).contains("lab/zone-b/p2", "lab/zone-a/p3", "lab/zone-b/p4");
            Thread.sleep(3000);
            assertThat(listedNames()).as("held").hasSize(4);
            assertThat(ServeProcess.proxy(serve.get("/v1/proxies"), "lab", "p3").path("outcome").asText())
                    .isEqualTo("held");
            assertThat(serve.err()).contains("deletes held back until an operator confirms them");

            HttpResponse<String> confirmed = serve.send("POST", "/v1/deletions/confirm?entry=lab");
            assertThat(confirmed.statusCode()).as(confirmed.body()).isEqualTo(200);
            assertThat(JSON.readTree(confirmed.body()).path("confirmed")).hasSize(3);
            serve.await("/v1/proxies", CONVERGE, "one left", proxies -> allRunning(proxies, 1));
            assertThat(listedNames()).containsExactly("p1");
        }
    }

    @Test
    void aSecondServeOfTheSameFileRefusesNamingTheFirst() throws Exception {
        desire("p1");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0")) {
            EgressctlProcess.Result second = egressctl.run("serve", "-f", desired.toString(), "--listen",
                    "127.0.0.1:0");
            assertThat(second.exitCode()).as(second.toString()).isEqualTo(2);
            assertThat(second.err()).contains("another egressctl serve already serves",
                    "pid " + serve.process().pid());
        }
    }

    @Test
    void listeningBeyondLoopbackNeedsTlsAndAToken() throws Exception {
        desire("p1");
        EgressctlProcess.Result refused = egressctl.run("serve", "-f", desired.toString(), "--listen", "0.0.0.0:0");
        assertThat(refused.exitCode()).as(refused.toString()).isEqualTo(2);
        assertThat(refused.err()).contains("--tls-cert and --tls-key", "--token-file");
        assertThat(refused.out()).isEmpty();
    }

    @Test
    void withATokenOnLoopbackActionsNeedIt() throws Exception {
        desire("p1");
        String token = "token-" + "x".repeat(24);
        Path tokenFile = Files.writeString(work.resolve("token"), token + "\n");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0", "--token-file", tokenFile.toString())) {
            assertThat(serve.send("POST", "/v1/reconcile").statusCode()).isEqualTo(401);
            assertThat(serve.send("POST", "/v1/reconcile", token).statusCode()).isEqualTo(202);
            assertThat(serve.send("GET", "/v1/proxies").statusCode()).isEqualTo(200);
            assertThat(serve.err()).doesNotContain(token);
        }
    }

    @Test
    void httpsWithATokenBeyondLoopback() throws Exception {
        desire("p1");
        Path key = work.resolve("key.pem");
        Path certificate = work.resolve("cert.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", certificate.toString(),
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1")
                .redirectErrorStream(true).start();
        assertThat(openssl.waitFor()).as(new String(openssl.getInputStream().readAllBytes())).isZero();
        String token = "token-" + "y".repeat(24);
        Path tokenFile = Files.writeString(work.resolve("token"), token);
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "0.0.0.0:0", "--tls-cert", certificate.toString(), "--tls-key", key.toString(), "--token-file",
                tokenFile.toString())) {
            String port = serve.base().substring(serve.base().lastIndexOf(':') + 1);
            String url = "https://127.0.0.1:" + port + "/v1/proxies";
            assertThat(curl("--cacert", certificate.toString(), "-o", "/dev/null", "-w", "%{http_code}", url))
                    .isEqualTo("401");
            assertThat(curl("--cacert", certificate.toString(), "-H", "Authorization: Bearer " + token, url))
                    .contains("\"desiredRevision\"");
            assertThat(curl("--cacert", certificate.toString(), "https://127.0.0.1:" + port + "/healthz"))
                    .isEqualTo("ok\n");
        }
    }

    @Test
    void clientsSendingTheirHeadersAByteASecondDoNotHoldUpOthers() throws Exception {
        desire("p1");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0")) {
            int port = Integer.parseInt(serve.base().substring(serve.base().lastIndexOf(':') + 1));
            List<java.net.Socket> slow = new ArrayList<>();
            try {
                for (int index = 0; index < 64; index++) {
                    java.net.Socket socket = new java.net.Socket("127.0.0.1", port);
                    socket.getOutputStream().write("GET /v1/proxies HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(
                            java.nio.charset.StandardCharsets.US_ASCII));
                    slow.add(socket);
                }
                for (int second = 0; second < 5; second++) {
                    for (java.net.Socket socket : slow) {
                        socket.getOutputStream().write('X');
                        socket.getOutputStream().flush();
                    }
                    long started = System.nanoTime();
                    assertThat(serve.send("GET", "/v1/entries").statusCode()).isEqualTo(200);
                    assertThat(serve.send("GET", "/healthz").statusCode()).isEqualTo(200);
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).as("two requests beside 64 slow clients")
                            .isLessThan(Duration.ofSeconds(2));
                    Thread.sleep(1000);
                }
            } finally {
                for (java.net.Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void jsonLogsAreOneObjectPerLine() throws Exception {
        desire("p1", "p2");
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0", "--log-format", "json")) {
            serve.await("/v1/proxies", CONVERGE, "two RUNNING", proxies -> allRunning(proxies, 2));
            serve.signal("INT");
            EgressctlProcess.Result stopped = serve.awaitExit(Duration.ofSeconds(30));
            assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
            List<JsonNode> lines = new ArrayList<>();
            for (String line : stopped.err().split("\n")) {
                lines.add(JSON.readTree(line));
            }
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.path("kind").asText()).isEqualTo("action");
                assertThat(line.path("action").asText()).isEqualTo("create");
                assertThat(line.path("outcome").asText()).isEqualTo("ok");
            });
            assertThat(lines).allSatisfy(line -> assertThat(line.path("time").asText()).isNotEmpty());
        }
    }

    @Test
    void sigtermDuringAnOperationFinishesItWithinTheGracePeriod() throws Exception {
        EgressctlProcess slow = withCreateFault("{latency: 4s}");
        EgressctlProcess.Result stopped = sigtermDuringACreate(slow, "30s");

        assertThat(stopped.err()).contains("create lab/zone-a/p1: ok");
        EgressctlProcess.Result list = slow.run("list", "-o", "json");
        assertThat(JSON.readTree(list.out())).as(list.toString()).hasSize(1);
    }

    @Test
    void sigtermAfterTheGracePeriodInterruptsAndLeavesNothingHalfMade() throws Exception {
        EgressctlProcess hanging = withCreateFault("{hang: true}");
        EgressctlProcess.Result stopped = sigtermDuringACreate(hanging, "1s");

        assertThat(stopped.err()).contains("interrupting the operations in flight", "create lab p1: interrupted");
        EgressctlProcess.Result list = hanging.run("list", "-o", "json");
        assertThat(JSON.readTree(list.out())).as(list.toString()).isEmpty();
    }

    /** egressctl on a one-zone fake entry whose creates suffer {@code fault}, desiring one proxy. */
    private EgressctlProcess withCreateFault(String fault) throws IOException {
        Path config = Files.writeString(work.resolve("faulty.yaml"), """
                providers:
                  - name: lab
                    type: fake
                    stateFile: %s/faulty.json
                    faults:
                      create: %s
                """.formatted(temp.resolve("state"), fault));
        Files.writeString(desired, "proxies:\n  - {name: p1, provider: lab, machineType: small, image: debian-12}\n");
        return egressctl.with("EGRESS_CONFIG", config.toString());
    }

    /**
     * Starts serve, sends SIGTERM while the create of p1 is in flight, and expects exit 0 within the
     * grace period and the clean-up time after it.
     */
    private EgressctlProcess.Result sigtermDuringACreate(EgressctlProcess egressctl, String grace) {
        try (ServeProcess serve = ServeProcess.start(egressctl, "serve", "-f", desired.toString(), "--listen",
                "127.0.0.1:0", "--grace", grace)) {
            serve.await("/v1/proxies", CONVERGE, "a create in flight", proxies -> proxies.path("proxies").size() == 1
                    && ServeProcess.proxy(proxies, "lab", "p1").path("outcome").asText().equals("in-flight"));
            Instant signalled = Instant.now();
            serve.signal("TERM");
            EgressctlProcess.Result stopped = serve.awaitExit(Duration.ofSeconds(60));
            assertThat(stopped.exitCode()).as(stopped.toString()).isZero();
            assertThat(Duration.between(signalled, Instant.now()))
                    .isLessThan(Duration.parse("PT" + grace.toUpperCase(java.util.Locale.ROOT)).plusSeconds(20));
            return stopped;
        }
    }

    private static String curl(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        command.addAll(List.of(arguments));
        Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(curl.getInputStream().readAllBytes());
        curl.waitFor();
        return out;
    }
}
