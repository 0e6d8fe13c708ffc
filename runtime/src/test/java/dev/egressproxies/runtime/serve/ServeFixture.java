package dev.egressproxies.runtime.serve;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.Provider;
import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.fake.FakeConfig;
import dev.egressproxies.fake.FakeProvider;
import dev.egressproxies.fake.FakeProviderFactory;
import dev.egressproxies.runtime.apply.PlanExecutor;
import dev.egressproxies.runtime.wiring.SharedServices;
import io.opentelemetry.api.OpenTelemetry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * A reconciler on one in-memory fake entry ({@code lab}, zones {@code zone-a} and {@code zone-b}),
 * with a desired-set file in a temporary folder and fast backoffs.
 */
final class ServeFixture implements AutoCloseable {
    static final String ENTRY = "lab";

    final Path folder;
    final Path desiredFile;
    final FakeProvider provider;
    final ServeContext context;
    final Reconciler reconciler;
    final ServeMetrics metrics = new ServeMetrics();
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private boolean stopped;

    ServeFixture(Path folder, Backoff backoff, int perHost, Set<String> confirmFirstHold) {
        this.folder = folder;
        this.desiredFile = folder.resolve("proxies.yaml");
        HttpClient client = HttpClient.newHttpClient();
        this.provider = new FakeProviderFactory().create(ENTRY, FakeConfig.defaults().withZones("zone-a", "zone-b"),
                new SharedServices(Clock.systemUTC(), OpenTelemetry.noop(), () -> client, ProgressReporter.SILENT,
                        folder));
        Map<String, Provider> providers = Map.of(ENTRY, provider);
        ActionLog log = new ActionLog(new PrintStream(logged, true, StandardCharsets.UTF_8), LogFormat.TEXT,
                Clock.systemUTC());
        this.context = new ServeContext(new PlanExecutor(providers::get, () -> Deadline.after(Duration.ofSeconds(30))),
                new OperationQueue(perHost), new FleetStatus(), metrics, log, Clock.systemUTC(), backoff,
                Duration.ofSeconds(5), EntryAuthority.SOLE, Executors.newScheduledThreadPool(2),
                Executors.newCachedThreadPool());
        this.reconciler = new Reconciler(context, new DesiredSetFile(desiredFile,
                name -> Optional.ofNullable(providers.get(name)), Clock.systemUTC()), name -> Optional.ofNullable(
                providers.get(name)), Map.of(ENTRY, "fake"), confirmFirstHold, entries -> { });
    }

    ServeFixture(Path folder) {
        this(folder, new Backoff(Duration.ofMillis(200), Duration.ofSeconds(1)), 4, Set.of());
    }

    /** Writes the desired set: one proxy per name, in the given zones in turn. */
    void desire(List<String> names) {
        StringBuilder yaml = new StringBuilder("providers: [lab]\nproxies:" + (names.isEmpty() ? " []" : "") + "\n");
        for (int index = 0; index < names.size(); index++) {
            yaml.append("  - {name: ").append(names.get(index)).append(", provider: lab, zone: zone-")
                    .append(index % 2 == 0 ? "a" : "b").append(", machineType: small, image: debian-12}\n");
        }
        write(yaml.toString());
    }

    void write(String content) {
        try {
            Path temporary = folder.resolve("proxies.yaml.new");
            Files.writeString(temporary, content);
            Files.move(temporary, desiredFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                    java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void start(Duration resync) throws IOException {
        reconciler.start(new DesiredSetFile(desiredFile, name -> Optional.of(provider), Clock.systemUTC()).load(),
                resync);
    }

    List<Instance> instances() {
        return provider.listManaged(Deadline.after(Duration.ofSeconds(5)));
    }

    String log() {
        return logged.toString(StandardCharsets.UTF_8);
    }

    /** Waits up to 20 s for the condition. */
    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    boolean stop(Duration grace) throws InterruptedException {
        stopped = true;
        return reconciler.stop(grace, Duration.ofSeconds(5), new CountDownLatch(1));
    }

    @Override
    public void close() throws InterruptedException {
        if (!stopped) {
            stop(Duration.ZERO);
        }
        provider.close();
    }
}
