package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.api.spi.ProgressReporter;
import dev.egressproxies.api.spi.ProviderContext;
import io.opentelemetry.api.OpenTelemetry;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The services a test hands the provider: a fixed clock, a real HTTP client (tests talk to a
 * loopback server only), inert telemetry unless a test brings its own, and a progress reporter that
 * records what it was told.
 */
public final class TestProviderContext implements ProviderContext {
    /** The time every test runs at. */
    public static final Instant NOW = Instant.parse("2025-01-31T12:00:00Z");

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final List<String> progressDescriptions = new CopyOnWriteArrayList<>();
    private final AtomicLong progressBytes = new AtomicLong();
    private final OpenTelemetry openTelemetry;

    /** A context with inert telemetry. */
    public TestProviderContext() {
        this(OpenTelemetry.noop());
    }

    /** A context whose spans go to {@code openTelemetry}, such as an SDK with an in-memory exporter. */
    public TestProviderContext(OpenTelemetry openTelemetry) {
        this.openTelemetry = openTelemetry;
    }

    @Override
    public Clock clock() {
        return clock;
    }

    @Override
    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    @Override
    public HttpClient httpClient() {
        return HTTP;
    }

    @Override
    public ProgressReporter progress() {
        return (description, totalBytes) -> {
            progressDescriptions.add(description + " (" + totalBytes + " bytes)");
            return new ProgressReporter.Progress() {
                @Override
                public void advance(long bytes) {
                    progressBytes.addAndGet(bytes);
                }

                @Override
                public void close() {
                }
            };
        };
    }

    @Override
    public Path stateDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** What progress reports were begun, with their sizes. */
    public List<String> progressDescriptions() {
        return List.copyOf(progressDescriptions);
    }

    /** How many bytes progress was reported for, over all reports. */
    public long progressBytes() {
        return progressBytes.get();
    }
}
