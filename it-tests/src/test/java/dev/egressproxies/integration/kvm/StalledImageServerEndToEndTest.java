package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.ImageServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An image server that stalls, met by {@code egressctl create} (the packaged launcher, a process of
 * its own) on the real stack, with {@code imageIdleTimeout: 3s} and {@code --timeout 30m}: whether
 * the server leaves the size probe's HEAD unanswered ({@code kvm2}), sends no response headers to
 * the GET, or stops after the first MiB of the body, the create exits 4 (TRANSIENT) within the idle
 * limit plus 5 seconds (process start and SSH included), naming the image's key, the server's
 * redacted URL, the bytes received and the limit, and leaves no base, marker, lease, overlay, seed
 * or domain. The outcomes are printed ({@code [stalled image server] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class StalledImageServerEndToEndTest {
    private static final String IDLE_LIMIT = "3s";
    private static final long IDLE_LIMIT_MILLIS = 3_000;
    /** What the acceptance allows beyond the idle limit: JVM start, config, SSH dial, pool lookups. */
    private static final long SLACK_MILLIS = 5_000;
    private static final String PATH = "/stalling/disk.qcow2";
    private static final int IMAGE_BYTES = 4 * 1024 * 1024;
    private static final int SENT_BEFORE_STALL = 1024 * 1024;

    @TempDir
    Path temp;

    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void releaseTheServer() {
        release.countDown();
    }

    /**
     * One way to stall, for one backend.
     *
     * @param type     {@code kvm} or {@code kvm2}
     * @param name     what the case is called
     * @param stall    arranges the server's answer, given the image's bytes and the release latch
     * @param expected what stderr must say besides the image's key and URL
     */
    record Stall(String type, String name, BiConsumer<ImageServer, CountDownLatch> stall, List<String> expected) {
        @Override
        public String toString() {
            return type + ": " + name;
        }
    }

    static Stream<Stall> stalls() {
        byte[] image = new byte[IMAGE_BYTES];
        ThreadLocalRandom.current().nextBytes(image);
        List<String> silentHeaders = List.of("sent nothing for 3s (imageIdleTimeout) in answer to the GET request",
                "no response headers arrived, 0 bytes of the image received");
        List<String> silentBody = List.of("sent nothing for 3s (imageIdleTimeout) after " + SENT_BEFORE_STALL + " of "
                + IMAGE_BYTES + " bytes of the image arrived");
        return Stream.of(
                // Only kvm2 asks for the size first; kvm's create goes straight to the GET.
                new Stall("kvm2", "HEAD unanswered", (server, release) -> server.serveNothing(PATH, release),
                        List.of("sent nothing for 3s (imageIdleTimeout) in answer to the HEAD request")),
                new Stall("kvm2", "GET headers never sent",
                        (server, release) -> server.serveHeadOnly(PATH, IMAGE_BYTES, release), silentHeaders),
                new Stall("kvm2", "body stalled after 1 MiB",
                        (server, release) -> server.serveStalled(PATH, image, SENT_BEFORE_STALL, release), silentBody),
                new Stall("kvm", "GET headers never sent",
                        (server, release) -> server.serveHeadOnly(PATH, IMAGE_BYTES, release), silentHeaders),
                new Stall("kvm", "body stalled after 1 MiB",
                        (server, release) -> server.serveStalled(PATH, image, SENT_BEFORE_STALL, release), silentBody));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stalls")
    void aStalledServerFailsTheCreateTransientWithinTheIdleLimit(Stall stall) throws IOException {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt());
        String key = NoKvmLeftovers.FAULT_PREFIX + "stall-" + suffix;
        String name = NoKvmLeftovers.FAULT_PREFIX + "stalled-vm-" + suffix;
        try (ImageServer server = new ImageServer()) {
            stall.stall().accept(server, release);
            KvmTestConfig config = (stall.type().equals("kvm2") ? KvmTestConfig.kvm2() : KvmTestConfig.standard())
                    .entry(NoKvmLeftovers.FAULT_PREFIX + stall.type() + "-stall")
                    .image(key, server.url(PATH))
                    .setting("imageIdleTimeout", IDLE_LIMIT);
            EgressctlProcess egressctl = egressctl(config);

            long started = System.nanoTime();
            EgressctlProcess.Result result = egressctl.run("--timeout", "30m", "create", name, "--provider",
                    config.entry(), "--zone", KvmTestConfig.HOST, "--machine-type", KvmTestConfig.MACHINE_TYPE,
                    "--image", key);
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

            System.out.println("[stalled image server] " + stall + " -> exit " + result.exitCode() + " after "
                    + tookMillis + " ms: " + result.err().strip());
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(4);
            assertThat(tookMillis).as("time to exit, idle limit %s", IDLE_LIMIT)
                    .isLessThan(IDLE_LIMIT_MILLIS + SLACK_MILLIS);
            assertThat(result.err()).as(result.toString())
                    .contains("image '" + key + "'", server.url(""))
                    .contains(stall.expected())
                    .doesNotContain("stalling/disk.qcow2", "deadline exceeded", "longer deadline");
            assertThat(NoKvmLeftovers.volumesNamedWith(config.stack().pool(), key))
                    .as("base, marker and lease of the stalled image").isEmpty();
            assertThat(NoKvmLeftovers.volumesNamedWith(config.stack().pool(), name)).as("overlay and seed").isEmpty();
        }
    }

    private EgressctlProcess egressctl(KvmTestConfig config) throws IOException {
        Path work = Files.createDirectories(temp.resolve("work"));
        Path file = Files.writeString(work.resolve("egress.yaml"), config.yaml());
        return new EgressctlProcess(Files.createDirectories(temp.resolve("home")), work)
                .with("EGRESS_CONFIG", file.toString());
    }
}
