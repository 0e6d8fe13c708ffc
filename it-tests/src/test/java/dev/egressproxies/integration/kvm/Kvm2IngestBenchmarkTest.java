package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.teststack.TestStack;
import dev.egressproxies.kvm.common.teststack.Virsh;
import dev.egressproxies.kvm2.Kvm2Provider;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image ingest benchmark of the {@code kvm2} backend: a pseudo-random raw image of 256 MiB and
 * of 1 GiB ({@link BenchmarkImage}) served by a loopback HTTP server in its own process ({@link
 * SeparateProcessFileServer}: a real image server is another machine, so its CPU is not the JVM's),
 * fetched by a create through the real sshd into the stack's pool (HTTP GET, running sha256 checked
 * against the pinned one, libvirt volume upload over the SSH tunnel), next to {@code virsh
 * vol-upload} of the same file over {@code qemu+ssh} (native libvirt and OpenSSH) into a volume of
 * the same size, and the same over the local socket (the floor, no SSH).
 *
 * <p>What is timed: for {@code kvm2}, the {@code kvm2.download} span (dedicated connection dialled,
 * base volume created, image fetched and uploaded, pool refreshed, marker written), read from an
 * in-memory span exporter; the whole create is printed too. For {@code virsh}, the whole {@code
 * vol-upload} command (process start and SSH handshake included). Each image: one warm-up of each,
 * then {@value #RUNS} runs of each, interleaved, each printed, then the medians and the ratio
 * (kvm2 MiB/s / virsh MiB/s; above 1 means kvm2 is faster). Heap figures per kvm2 run are
 * {@link HeapWatch}'s. Figures are printed ({@code [kvm2 ingest benchmark] ...}), not asserted;
 * the target is a ratio of at least 1.0 with the digest pinned, and heap that does not grow with
 * the image.
 *
 * <p>Every domain and volume made is named {@code egress-it-bench-...} and removed after its run.
 * Tagged {@code benchmark}: {@code ./mvnw -B -pl it-tests -am verify -Pbenchmarks
 * -Dtest=Kvm2IngestBenchmarkTest -Dsurefire.failIfNoSpecifiedTests=false -DskipITs}.
 */
@Tag("integration")
@Tag("benchmark")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2IngestBenchmarkTest {
    /** Runs of each way per image; {@code -Dkvm2.ingest.runs=N} changes it (for profiling). */
    private static final int RUNS = Integer.getInteger("kvm2.ingest.runs", 3);
    /** The image sizes in MiB, smallest first; {@code -Dkvm2.ingest.mebibytes=1024} changes them. */
    private static final String MEBIBYTES = System.getProperty("kvm2.ingest.mebibytes", "256,1024");
    private static final String ENTRY = NoKvmLeftovers.BENCHMARK_PREFIX + "ingest";
    private static final String VIRSH_VOLUME = NoKvmLeftovers.BENCHMARK_PREFIX + "virsh-upload";
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(10);
    private static final AttributeKey<Long> BYTES = AttributeKey.longKey("kvm2.bytes");

    @TempDir
    Path temporary;

    @Test
    void ingestOfLargeImagesThroughSshdNextToVirshVolUpload() throws Exception {
        List<BenchmarkImage> images = Arrays.stream(MEBIBYTES.split(",")).map(String::strip).map(Integer::parseInt)
                .map(BenchmarkImage::ofMebibytes).toList();
        TestStack stack = TestStack.load();
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        KvmTestConfig config = KvmTestConfig.kvm2().entry(ENTRY).setting("transferBudget", "10m");
        Map<BenchmarkImage, String> pinned = new LinkedHashMap<>();
        Map<BenchmarkImage, String> unpinned = new LinkedHashMap<>();
        try (SeparateProcessFileServer server = SeparateProcessFileServer.serving(images.get(0).file().getParent());
             OpenTelemetrySdk telemetry = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                     .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build()) {
            for (BenchmarkImage image : images) {
                String path = image.file().getFileName().toString();
                String key = "bench-" + image.mebibytes() + "mib";
                config.catalogueImage(key, "{url: " + KvmTestConfig.quoted(server.url(path)) + ", sha256: "
                        + image.sha256() + ", format: raw, firmware: bios}");
                config.catalogueImage(key + "-unpinned", "{url: " + KvmTestConfig.quoted(server.url(path))
                        + ", format: raw, firmware: bios}");
                pinned.put(image, key);
                unpinned.put(image, key + "-unpinned");
            }
            try (Kvm2Provider kvm2 = ConfiguredProviders.providerFromYaml(config.yaml(), ENTRY, Kvm2Provider.class,
                    new TestProviderContext(temporary, telemetry))) {
                Ingest ingest = new Ingest(kvm2, spans, stack, server);
                report("virsh over qemu+ssh: %s", Scripts.run(30, "virsh-over-ssh.sh", "--uri").strip());
                report("warm-up: %s; %s", ingest.kvm2(images.get(0), pinned.get(images.get(0)), "warm-up"),
                        ingest.virsh(images.get(0), Link.SSH));
                List<String> summary = new ArrayList<>();
                for (BenchmarkImage image : images) {
                    summary.add(compare(ingest, image, pinned.get(image), "sha256 pinned"));
                }
                BenchmarkImage largest = images.get(images.size() - 1);
                summary.add(compare(ingest, largest, unpinned.get(largest), "no sha256 pinned (still computed)"));
                summary.forEach(line -> report("SUMMARY %s", line));
            }
        }
        assertThat(Virsh.volumes(stack.pool(), NoKvmLeftovers.BENCHMARK_PREFIX)).isEmpty();
    }

    /** {@value #RUNS} runs of each way, interleaved; returns the summary line. */
    private static String compare(Ingest ingest, BenchmarkImage image, String key, String digest) {
        List<Run> ours = new ArrayList<>();
        List<Run> virsh = new ArrayList<>();
        List<Run> local = new ArrayList<>();
        for (int run = 1; run <= RUNS; run++) {
            ours.add(ingest.kvm2(image, key, "run " + run));
            virsh.add(ingest.virsh(image, Link.SSH));
            local.add(ingest.virsh(image, Link.LOCAL_SOCKET));
            report("%d MiB, %s, run %d: %s; %s; %s", image.mebibytes(), digest, run, ours.get(run - 1),
                    virsh.get(run - 1), local.get(run - 1));
        }
        double oursMedian = medianRate(ours);
        double virshMedian = medianRate(virsh);
        return String.format("%d MiB, %s: kvm2 through sshd median %.0f MiB/s, virsh vol-upload over qemu+ssh median"
                        + " %.0f MiB/s, ratio %.2fx (target >= 1.0x: %s); virsh on the local socket (no SSH) median"
                        + " %.0f MiB/s; kvm2 heap per run: %s", image.mebibytes(), digest, oursMedian, virshMedian,
                oursMedian / virshMedian, oursMedian >= virshMedian ? "met" : "NOT met", medianRate(local),
                ours.stream().map(run -> run.heap().toString()).toList());
    }

    private static double medianRate(List<Run> runs) {
        double[] rates = runs.stream().mapToDouble(Run::mebibytesPerSecond).sorted().toArray();
        return rates[rates.length / 2];
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[kvm2 ingest benchmark] " + String.format(format, arguments));
    }

    /** How virsh reaches libvirtd. */
    private enum Link {
        SSH, LOCAL_SOCKET
    }

    /** The runs: one way of getting an image into the pool each, leaving nothing behind. */
    private record Ingest(Kvm2Provider kvm2, InMemorySpanExporter spans, TestStack stack,
                          SeparateProcessFileServer server) {
        /** A create that fetches the image into a fresh base volume; the domain, base and marker removed after. */
        Run kvm2(BenchmarkImage image, String key, String label) {
            String name = NoKvmLeftovers.BENCHMARK_PREFIX + "ingest-vm";
            CreateRequest request = new CreateRequest(name, "uid-" + name,
                    new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, key), "#cloud-config\n");
            spans.reset();
            String id = null;
            try {
                HeapWatch heap = HeapWatch.start();
                long cpuBefore = processCpuNanos();
                long serverCpuBefore = server.cpuNanos();
                long started = System.nanoTime();
                id = kvm2.create(request, Deadline.after(CALL_TIMEOUT));
                long createNanos = System.nanoTime() - started;
                long cpuNanos = processCpuNanos() - cpuBefore;
                long serverCpuNanos = server.cpuNanos() - serverCpuBefore;
                HeapWatch.Figures figures = heap.stop();
                SpanData download = spans.getFinishedSpanItems().stream()
                        .filter(span -> span.getName().equals("kvm2.download")).findFirst()
                        .orElseThrow(() -> new AssertionError("no kvm2.download span: was the base cached?"));
                long bytes = download.getAttributes().get(BYTES);
                assertThat(bytes).as("bytes fetched").isEqualTo(image.bytes());
                return new Run("kvm2 " + label, bytes, download.getEndEpochNanos() - download.getStartEpochNanos(),
                        createNanos, cpuNanos, serverCpuNanos, figures);
            } finally {
                if (id != null) {
                    kvm2.delete(id, Deadline.after(CALL_TIMEOUT));
                }
                // The base and its marker stay cached by design; the next run must fetch again.
                for (String volume : Virsh.volumes(stack.pool(), ENTRY + "+")) {
                    Virsh.run("vol-delete", "--pool", stack.pool(), volume);
                }
            }
        }

        /** {@code virsh vol-upload} of the file into a raw volume of its size, made before and removed after. */
        Run virsh(BenchmarkImage image, Link link) {
            Virsh.run("vol-create-as", stack.pool(), VIRSH_VOLUME, Long.toString(image.bytes()), "--format", "raw");
            try {
                String[] upload = {"vol-upload", "--pool", stack.pool(), VIRSH_VOLUME, image.file().toString()};
                long started = System.nanoTime();
                if (link == Link.SSH) {
                    Scripts.run(CALL_TIMEOUT.toSeconds(), "virsh-over-ssh.sh", upload);
                } else {
                    String[] command = new String[upload.length + 3];
                    command[0] = "virsh";
                    command[1] = "-c";
                    command[2] = "qemu:///system";
                    System.arraycopy(upload, 0, command, 3, upload.length);
                    Commands.run(CALL_TIMEOUT.toSeconds(), command);
                }
                long nanos = System.nanoTime() - started;
                return new Run(link == Link.SSH ? "virsh over qemu+ssh" : "virsh on the local socket", image.bytes(),
                        nanos, nanos, 0, 0, null);
            } finally {
                Virsh.run("vol-delete", "--pool", stack.pool(), VIRSH_VOLUME);
            }
        }
    }

    /** The CPU time this JVM used so far, every thread (the HTTP server runs in its own process). */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * One timed ingest.
     *
     * @param how        who moved the bytes
     * @param bytes      how many
     * @param nanos      the time the figure is made of
     * @param totalNanos the whole call (kvm2: the create)
     * @param cpuNanos   the CPU time of this JVM during the call, for kvm2 runs
     * @param serverCpuNanos the CPU time of the HTTP server's process during the call, for kvm2 runs
     * @param heap       what the heap did, for kvm2 runs; otherwise {@code null}
     */
    private record Run(String how, long bytes, long nanos, long totalNanos, long cpuNanos, long serverCpuNanos,
                       HeapWatch.Figures heap) {
        double mebibytesPerSecond() {
            return bytes / 1048576.0 / (nanos / 1e9);
        }

        @Override
        public String toString() {
            String figure = String.format("%s %.0f MiB/s (%.2f s", how, mebibytesPerSecond(), nanos / 1e9);
            return heap == null ? figure + ")"
                    : figure + " download span, create %.2f s, JVM CPU %.2f s, HTTP server CPU %.2f s, %s)"
                            .formatted(totalNanos / 1e9, cpuNanos / 1e9, serverCpuNanos / 1e9, heap);
        }
    }
}
