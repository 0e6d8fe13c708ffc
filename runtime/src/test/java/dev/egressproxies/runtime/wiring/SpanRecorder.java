package dev.egressproxies.runtime.wiring;

import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A span exporter that keeps every span for the test to inspect, even after the invocation closed
 * its SDK (which shuts exporters down).
 */
public final class SpanRecorder implements SpanExporter {
    private final List<SpanData> spans = new CopyOnWriteArrayList<>();

    /** The spans exported so far. */
    public List<SpanData> spans() {
        return List.copyOf(spans);
    }

    @Override
    public CompletableResultCode export(Collection<SpanData> batch) {
        spans.addAll(batch);
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
