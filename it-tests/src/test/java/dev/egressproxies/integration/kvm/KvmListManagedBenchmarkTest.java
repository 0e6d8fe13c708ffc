package dev.egressproxies.integration.kvm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.TestProviderContext;
import dev.egressproxies.integration.ConfiguredProviders;
import dev.egressproxies.kvm.KvmProvider;
import dev.egressproxies.kvm.common.Call;
import dev.egressproxies.kvm.common.host.HostCall;
import dev.egressproxies.kvm.common.instance.HostPool;
import dev.egressproxies.kvm.common.libvirt.LibvirtHost.Domain;
import dev.egressproxies.kvm.common.teststack.Commands;
import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import dev.egressproxies.kvm.config.KvmHost;
import dev.egressproxies.registry.PluginCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The listManaged benchmark of the {@code kvm} backend: {@value #DOMAINS} stopped domains with the
 * platform's metadata on the stack's libvirtd, listed through the real sshd; with the native
 * baseline (one {@code virsh} session over SSH doing the same reads), the same listing without SSH
 * (the floor), the latency of single libvirt calls through both, and the libvirt calls of create,
 * get, delete and listManaged. Figures are printed ({@code [kvm benchmark] ...}), not asserted;
 * the target is {@value #TARGET_MILLIS} ms for the {@value #DOMAINS}.
 *
 * <p>Tagged {@code benchmark}, which the build leaves out unless asked:
 * {@code ./mvnw -B -pl it-tests verify -Pbenchmarks}.
 */
@Tag("integration")
@Tag("benchmark")
@ExtendWith(NoKvmLeftovers.class)
class KvmListManagedBenchmarkTest {
    private static final int DOMAINS = 500;
    private static final int RUNS = 5;
    private static final long TARGET_MILLIS = 500;
    private static final int LATENCY_SAMPLES = 1000;
    /** The threads of the parallel-reads profile: libvirtd serves 5 requests per client at once by default. */
    private static final int PARALLEL_READERS = 4;
    /** The prefix of define-many-domains.sh, which names them PREFIX-0001 and so on. */
    private static final String DOMAIN_PREFIX = NoKvmLeftovers.BENCHMARK_PREFIX.substring(0,
            NoKvmLeftovers.BENCHMARK_PREFIX.length() - 1);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(120);

    @TempDir
    Path temporary;

    @BeforeAll
    static void defineTheDomains() {
        report("%s", Scripts.run(600, "define-many-domains.sh", Integer.toString(DOMAINS), DOMAIN_PREFIX,
                KvmTestConfig.ENTRY).strip());
    }

    @AfterAll
    static void undefineTheDomains() {
        report("%s", Scripts.run(600, "undefine-domains.sh", DOMAIN_PREFIX).strip());
    }

    @Test
    void listManagedOfManyDomainsThroughSshd() throws Exception {
        BenchmarkKvmProviderFactory ssh = new BenchmarkKvmProviderFactory(BenchmarkKvmProviderFactory.Transport.SSH);
        BenchmarkKvmProviderFactory local =
                new BenchmarkKvmProviderFactory(BenchmarkKvmProviderFactory.Transport.LOCAL_SOCKET);
        try (KvmProvider overSsh = provider(ssh); KvmProvider overLocalSocket = provider(local)) {
            Timings throughSsh = timeListManaged("through sshd", overSsh, ssh.lastConnections());
            Timings withoutSsh = timeListManaged("local socket, no SSH", overLocalSocket, local.lastConnections());

            CountingDialer counted = ssh.lastConnections();
            counted.reset();
            List<Instance> listed = overSsh.listManaged(Deadline.after(CALL_TIMEOUT));
            report("libvirt calls of one listManaged (%d managed domains listed): %d in %d host call(s): %s",
                    listed.size(), counted.totalCalls(), counted.hostCalls(), counted.calls());
            report("time inside the adapter per method during that listManaged: %s", inMillis(counted.nanos()));

            countCreateGetDelete(overSsh, counted);
            latencyOfSingleCalls(ssh, "through sshd");
            latencyOfSingleCalls(local, "local socket, no SSH");
            readsOfEveryDomain(ssh, "through sshd");
            readsOfEveryDomain(local, "local socket, no SSH");
            costOfParsingMetadata(ssh);
            Timings steadySsh = timeListManaged("through sshd, steady state after all of the above", overSsh,
                    ssh.lastConnections());
            Timings steadyLocal = timeListManaged("local socket, steady state after all of the above", overLocalSocket,
                    local.lastConnections());

            report("native baseline, one virsh session over SSH (qemu+ssh):%n%s",
                    Scripts.run(600, "virsh-list-managed-baseline.sh", "3").strip());
            report("native floor, one virsh session on the local socket (qemu:///system):%n%s",
                    Commands.run(600, "env", "EGRESS_TEST_LIBVIRT_URI=qemu:///system",
                            Scripts.find("virsh-list-managed-baseline.sh").toString(), "3").strip());
            report("SUMMARY listManaged of %d managed domains through sshd: median %d ms, min %d ms (target <= %d ms:"
                            + " %s), steady state median %d ms, min %d ms; without SSH: median %d ms, min %d ms,"
                            + " steady state median %d ms, min %d ms", listed.size(), throughSsh.medianMillis(),
                    throughSsh.minMillis(), TARGET_MILLIS, throughSsh.medianMillis() <= TARGET_MILLIS ? "met" : "NOT met",
                    steadySsh.medianMillis(), steadySsh.minMillis(), withoutSsh.medianMillis(), withoutSsh.minMillis(),
                    steadyLocal.medianMillis(), steadyLocal.minMillis());
            assertThat(listed).filteredOn(instance -> instance.name().startsWith(DOMAIN_PREFIX + "-"))
                    .hasSize(DOMAINS);
        }
    }

    private KvmProvider provider(BenchmarkKvmProviderFactory factory) throws Exception {
        return ConfiguredProviders.providerFromYaml(KvmTestConfig.standard().yaml(), PluginCatalog.of(factory),
                KvmTestConfig.ENTRY, KvmProvider.class, new TestProviderContext(temporary));
    }

    /**
     * One call first (which connects, on a new provider), then {@value #RUNS} timed calls; with the
     * time the calls spent inside the libvirt adapter (waiting for libvirtd, mostly).
     */
    private static Timings timeListManaged(String how, KvmProvider kvm, CountingDialer counted) {
        long started = System.nanoTime();
        int count = kvm.listManaged(Deadline.after(CALL_TIMEOUT)).size();
        long first = System.nanoTime() - started;
        long[] runs = new long[RUNS];
        long[] inAdapter = new long[RUNS];
        for (int run = 0; run < RUNS; run++) {
            counted.reset();
            started = System.nanoTime();
            kvm.listManaged(Deadline.after(CALL_TIMEOUT));
            runs[run] = System.nanoTime() - started;
            inAdapter[run] = counted.nanos().values().stream().mapToLong(Long::longValue).sum();
        }
        Timings timings = new Timings(runs);
        report("listManaged (%s) of %d managed domains: first call %d ms; then %d runs: median %d ms, min %d ms,"
                        + " all %s ms, of which inside the libvirt adapter %s ms", how, count, first / 1_000_000, RUNS,
                timings.medianMillis(), timings.minMillis(), timings.allMillis(), new Timings(inAdapter).allMillis());
        return timings;
    }

    private static void countCreateGetDelete(KvmProvider kvm, CountingDialer counted) {
        String name = NoKvmLeftovers.BENCHMARK_PREFIX + "probe-" + randomHex();
        CreateRequest request = new CreateRequest(name, "uid-" + name,
                new Placement(KvmTestConfig.HOST, KvmTestConfig.MACHINE_TYPE, KvmTestConfig.IMAGE),
                "#cloud-config\nhostname: probe\n");
        counted.reset();
        long started = System.nanoTime();
        String id = kvm.create(request, Deadline.after(CALL_TIMEOUT));
        long createNanos = System.nanoTime() - started;
        report("libvirt calls of one create (base image cached): %d in %d host call(s), %d ms: %s",
                counted.totalCalls(), counted.hostCalls(), createNanos / 1_000_000, counted.calls());
        try {
            counted.reset();
            kvm.create(request, Deadline.after(CALL_TIMEOUT));
            report("libvirt calls of a repeated create (domain exists and runs): %d in %d host call(s): %s",
                    counted.totalCalls(), counted.hostCalls(), counted.calls());
            counted.reset();
            started = System.nanoTime();
            kvm.get(id, Deadline.after(CALL_TIMEOUT));
            long getNanos = System.nanoTime() - started;
            report("libvirt calls of one get (running domain): %d in %d host call(s), %.1f ms: %s",
                    counted.totalCalls(), counted.hostCalls(), getNanos / 1e6, counted.calls());
        } finally {
            counted.reset();
            started = System.nanoTime();
            kvm.delete(id, Deadline.after(CALL_TIMEOUT));
            report("libvirt calls of one delete: %d in %d host call(s), %d ms: %s", counted.totalCalls(),
                    counted.hostCalls(), (System.nanoTime() - started) / 1_000_000, counted.calls());
        }
    }

    /** Runs {@code work} in one host call through a pool of its own on the last provider's dialer. */
    private static <T> T onHost(BenchmarkKvmProviderFactory factory, KvmHost host, HostCall<T> work) {
        try (HostPool pool = new HostPool(factory.lastConnections())) {
            return pool.call(host.settings(), new Call("benchmark", Operation.GET, "", Deadline.after(CALL_TIMEOUT)),
                    work);
        }
    }

    /** The round trip of single libvirt calls, one after another on one warm link. */
    private static void latencyOfSingleCalls(BenchmarkKvmProviderFactory factory, String how) {
        KvmHost host = factory.lastConfig().host(KvmTestConfig.HOST).orElseThrow();
        String name = DOMAIN_PREFIX + "-0001";
        long[][] nanos = onHost(factory, host, libvirt -> {
            Domain domain = libvirt.lookupDomain(name).orElseThrow();
            long[] state = new long[LATENCY_SAMPLES];
            long[] metadata = new long[LATENCY_SAMPLES];
            for (int sample = 0; sample < LATENCY_SAMPLES; sample++) {
                long started = System.nanoTime();
                libvirt.domainState(domain);
                state[sample] = System.nanoTime() - started;
                started = System.nanoTime();
                libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE);
                metadata[sample] = System.nanoTime() - started;
            }
            long started = System.nanoTime();
            int all = libvirt.listAllDomains().size();
            return new long[][] {state, metadata, {System.nanoTime() - started, all}};
        });
        report("single-call latency (%s), %d samples each: domainState median %.0f us (p90 %.0f us), domainMetadata"
                        + " median %.0f us (p90 %.0f us); listAllDomains of %d domains %.1f ms", how, LATENCY_SAMPLES,
                percentile(nanos[0], 50) / 1e3, percentile(nanos[0], 90) / 1e3, percentile(nanos[1], 50) / 1e3,
                percentile(nanos[1], 90) / 1e3, nanos[2][1], nanos[2][0] / 1e6);
    }

    /**
     * The reads listManaged makes (metadata and state of every domain), without the provider
     * around them: one after another as listManaged does, and spread over
     * {@value #PARALLEL_READERS} threads on the same link, which libvirt's client multiplexes; and
     * the metadata alone, which is what remains per domain when states come from the listing.
     */
    private static void readsOfEveryDomain(BenchmarkKvmProviderFactory factory, String how) {
        KvmHost host = factory.lastConfig().host(KvmTestConfig.HOST).orElseThrow();
        long[] nanos = onHost(factory, host, libvirt -> {
            List<Domain> domains = libvirt.listAllDomains();
            ExecutorService readers = Executors.newFixedThreadPool(PARALLEL_READERS);
            try {
                Consumer<Domain> both = domain -> {
                    libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE);
                    libvirt.domainState(domain);
                };
                Consumer<Domain> metadata = domain -> libvirt.domainMetadata(domain, InstanceMetadata.NAMESPACE);
                return new long[] {domains.size(), oneAfterAnother(domains, both), onThreads(readers, domains, both),
                        oneAfterAnother(domains, metadata), onThreads(readers, domains, metadata)};
            } finally {
                readers.shutdownNow();
            }
        });
        report("reads of all %d domains (%s), adapter only: metadata + state one after another %d ms, on %d threads"
                        + " %d ms; metadata alone one after another %d ms, on %d threads %d ms", nanos[0], how,
                nanos[1] / 1_000_000, PARALLEL_READERS, nanos[2] / 1_000_000, nanos[3] / 1_000_000, PARALLEL_READERS,
                nanos[4] / 1_000_000);
    }

    private static long oneAfterAnother(List<Domain> domains, Consumer<Domain> read) {
        long started = System.nanoTime();
        domains.forEach(read);
        return System.nanoTime() - started;
    }

    private static long onThreads(ExecutorService readers, List<Domain> domains, Consumer<Domain> read) {
        long started = System.nanoTime();
        List<Future<?>> reads = new ArrayList<>();
        for (Domain domain : domains) {
            reads.add(readers.submit(() -> read.accept(domain)));
        }
        try {
            for (Future<?> future : reads) {
                future.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
        return System.nanoTime() - started;
    }

    /** What reading the metadata element costs in the JVM, per domain. */
    private static void costOfParsingMetadata(BenchmarkKvmProviderFactory factory) {
        KvmHost host = factory.lastConfig().host(KvmTestConfig.HOST).orElseThrow();
        String element = onHost(factory, host, libvirt -> libvirt.domainMetadata(
                libvirt.lookupDomain(DOMAIN_PREFIX + "-0001").orElseThrow(), InstanceMetadata.NAMESPACE).orElseThrow());
        long[] nanos = new long[DOMAINS];
        for (int round = 0; round < 2; round++) {
            for (int index = 0; index < DOMAINS; index++) {
                long started = System.nanoTime();
                InstanceMetadata.parse(element);
                nanos[index] = System.nanoTime() - started;
            }
        }
        report("InstanceMetadata.parse of one element, %d times (after as many to warm up): %d ms in all, median %.0f"
                + " us", DOMAINS, Arrays.stream(nanos).sum() / 1_000_000, percentile(nanos, 50) / 1e3);
    }

    private static double percentile(long[] values, int percent) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)];
    }

    private static Map<String, String> inMillis(Map<String, Long> nanos) {
        Map<String, String> millis = new TreeMap<>();
        nanos.forEach((method, total) -> millis.put(method, String.format("%.0f ms", total / 1e6)));
        return millis;
    }

    private static String randomHex() {
        byte[] random = new byte[4];
        ThreadLocalRandom.current().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    private static void report(String format, Object... arguments) {
        System.out.println("[kvm benchmark] " + String.format(format, arguments));
    }

    /** The durations of repeated runs. */
    private record Timings(long[] nanos) {
        long medianMillis() {
            long[] sorted = nanos.clone();
            Arrays.sort(sorted);
            return sorted[sorted.length / 2] / 1_000_000;
        }

        long minMillis() {
            return Arrays.stream(nanos).min().orElseThrow() / 1_000_000;
        }

        List<Long> allMillis() {
            List<Long> all = new ArrayList<>();
            for (long run : nanos) {
                all.add(run / 1_000_000);
            }
            return all;
        }
    }
}
