package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.endtoend.EgressctlProcess;
import dev.egressproxies.kvm.common.testing.ImageServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
 * limit plus 5 seconds of the moment the server stalled, naming the image's key, the server's
 * redacted URL, the bytes received and the limit, and leaves no base, marker, lease, overlay, seed
 * or domain. The whole command (process start and SSH dial included, which on a loaded machine
 * take seconds of their own) must end within {@value #WHOLE_COMMAND_SECONDS} seconds, far from the
 * deadline. The outcomes are printed ({@code [stalled image server] ...}).
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class StalledImageServerEndToEndTest {
    private static final String IDLE_LIMIT = "3s";
    private static final long IDLE_LIMIT_MILLIS = 3_000;
    /** What is allowed beyond the idle limit, from the server's stall to the process's exit. */
    private static final long SLACK_MILLIS = 5_000;
    /** The bound of the whole command, against {@code --timeout 30m}. */
    private static final long WHOLE_COMMAND_SECONDS = 30;
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
     * @param stall    arranges the server's answer, given the latch it opens when it stalls and the
     *                 one that releases it
     * @param expected what stderr must say besides the image's key and URL
     */
    record Stall(String type, String name, StallArrangement stall, List<String> expected) {
        @Override
        public String toString() {
            return type + ": " + name;
        }
    }

    /** Arranges a stalling answer on a server. */
    interface StallArrangement {
        void arrange(ImageServer server, CountDownLatch stalled, CountDownLatch release);
    }

    static Stream<Stall> stalls() {
        byte[] image = new byte[IMAGE_BYTES];
        ThreadLocalRandom.current().nextBytes(image);
        List<String> silentHeaders = List.of("sent nothing for 3s (imageIdleTimeout) in answer to the GET request",
                "no response headers arrived, 0 bytes of the image received");
        List<String> silentBody = List.of("sent nothing for 3s (imageIdleTimeout) after " + SENT_BEFORE_STALL + " of "
                + IMAGE_BYTES + " bytes of the image arrived");
        StallArrangement nothing = (server, stalled, release) -> server.serveNothing(PATH, stalled, release);
        StallArrangement headOnly = (server, stalled, release) -> server.serveHeadOnly(PATH, IMAGE_BYTES, stalled,
                release);
        StallArrangement stalledBody = (server, stalled, release) -> server.serveStalled(PATH, image,
                SENT_BEFORE_STALL, stalled, release);
        return Stream.of(
                // Only kvm2 asks for the size first; kvm's create goes straight to the GET.
                new Stall("kvm2", "HEAD unanswered", nothing,
                        List.of("sent nothing for 3s (imageIdleTimeout) in answer to the HEAD request")),
                new Stall("kvm2", "GET headers never sent", headOnly, silentHeaders),
                new Stall("kvm2", "body stalled after 1 MiB", stalledBody, silentBody),
                new Stall("kvm", "GET headers never sent", headOnly, silentHeaders),
                new Stall("kvm", "body stalled after 1 MiB", stalledBody, silentBody));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("stalls")
    void aStalledServerFailsTheCreateTransientWithinTheIdleLimit(Stall stall) throws IOException {
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt());
        String key = NoKvmLeftovers.FAULT_PREFIX + "stall-" + suffix;
        String name = NoKvmLeftovers.FAULT_PREFIX + "stalled-vm-" + suffix;
        try (ImageServer server = new ImageServer()) {
            CountDownLatch stalled = new CountDownLatch(1);
            stall.stall().arrange(server, stalled, release);
            CompletableFuture<Long> stalledAt = CompletableFuture.supplyAsync(() -> {
                try {
                    stalled.await(WHOLE_COMMAND_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
                return System.nanoTime();
            });
            KvmTestConfig config = (stall.type().equals("kvm2") ? KvmTestConfig.kvm2() : KvmTestConfig.standard())
                    .entry(NoKvmLeftovers.FAULT_PREFIX + stall.type() + "-stall")
                    .image(key, server.url(PATH))
                    .setting("imageIdleTimeout", IDLE_LIMIT);
            EgressctlProcess egressctl = egressctl(config);

            long started = System.nanoTime();
            EgressctlProcess.Result result = egressctl.run("--timeout", "30m", "create", name, "--provider",
                    config.entry(), "--zone", KvmTestConfig.HOST, "--machine-type", KvmTestConfig.MACHINE_TYPE,
                    "--image", key);
            long ended = System.nanoTime();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(ended - started);
            assertThat(stalled.getCount()).as("the server stalled; %s", result).isZero();
            long afterStallMillis = TimeUnit.NANOSECONDS.toMillis(ended - stalledAt.join());

            System.out.println("[stalled image server] " + stall + " -> exit " + result.exitCode() + " after "
                    + tookMillis + " ms, " + afterStallMillis + " ms after the stall: " + result.err().strip());
            assertThat(result.exitCode()).as(result.toString()).isEqualTo(4);
            assertThat(afterStallMillis).as("time from the stall to the exit, idle limit %s", IDLE_LIMIT)
                    .isLessThan(IDLE_LIMIT_MILLIS + SLACK_MILLIS);
            assertThat(tookMillis).as("time of the whole command").isLessThan(WHOLE_COMMAND_SECONDS * 1000);
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
