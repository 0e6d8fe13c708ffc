package dev.egressproxies.kvm2;

import dev.egressproxies.api.ProviderException;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The spans of a {@code kvm2} provider: one per operation ({@code kvm2.create}, {@code kvm2.get},
 * {@code kvm2.delete}, {@code kvm2.listManaged}) and one per image fetch ({@code kvm2.download}, a
 * child of the create it serves), made through the platform's {@link OpenTelemetry}.
 *
 * <p>Attributes name the entry, host, instance and volume, the image URL's host only, whether a
 * digest was configured, and the bytes fetched. A failed operation sets the span's status to ERROR
 * with the error's kind and detail, which never hold a URL's path, query or user information (the
 * fetch pipeline names images by their redacted URL); exceptions are not recorded as events, because
 * their causes' messages come from libraries.
 */
final class Kvm2Telemetry {
    static final AttributeKey<String> ENTRY = AttributeKey.stringKey("kvm2.entry");
    static final AttributeKey<String> HOST = AttributeKey.stringKey("kvm2.host");
    static final AttributeKey<String> INSTANCE = AttributeKey.stringKey("kvm2.instance");
    static final AttributeKey<String> VOLUME = AttributeKey.stringKey("kvm2.volume");
    static final AttributeKey<String> URL_HOST = AttributeKey.stringKey("kvm2.url_host");
    static final AttributeKey<Boolean> SHA256_CONFIGURED = AttributeKey.booleanKey("kvm2.sha256_configured");
    static final AttributeKey<Long> BYTES = AttributeKey.longKey("kvm2.bytes");
    static final AttributeKey<Long> IMAGE_BYTES = AttributeKey.longKey("kvm2.image_bytes");
    static final AttributeKey<String> ERROR_KIND = AttributeKey.stringKey("kvm2.error_kind");

    private final Tracer tracer;
    private final String entry;

    Kvm2Telemetry(OpenTelemetry openTelemetry, String entry) {
        this.tracer = openTelemetry.getTracer("dev.egressproxies.kvm2");
        this.entry = entry;
    }

    /**
     * Runs {@code work} inside a new span named {@code name}, current on this thread, so spans the
     * work starts are its children. {@code annotate} may add attributes once the work is done; the
     * span's status is ERROR when the work throws.
     */
    @SuppressWarnings("try") // the scope is held for its effect: the span is current while the work runs
    <T> T inSpan(String name, SpanKind kind, Attributes attributes, Supplier<T> work, Consumer<SpanResult<T>> annotate) {
        Span span = tracer.spanBuilder(name).setSpanKind(kind).setAllAttributes(attributes)
                .setAttribute(ENTRY, entry).startSpan();
        try (Scope ignored = span.makeCurrent()) {
            T result = work.get();
            annotate.accept(new SpanResult<>(span, result, null));
            return result;
        } catch (RuntimeException failure) {
            annotate.accept(new SpanResult<>(span, null, failure));
            fail(span, failure);
            throw failure;
        } finally {
            span.end();
        }
    }

    /** Runs {@code work} inside a new span named {@code name}. */
    <T> T inSpan(String name, Attributes attributes, Supplier<T> work) {
        return inSpan(name, SpanKind.INTERNAL, attributes, work, done -> {
        });
    }

    /** Sets the span's status to ERROR with what went wrong. */
    static void fail(Span span, RuntimeException failure) {
        if (failure instanceof ProviderException error) {
            span.setAttribute(ERROR_KIND, error.kind().name());
            span.setStatus(StatusCode.ERROR, error.kind() + ": " + error.detail());
        } else {
            // Not a contract error: a bug or a broken invariant; its type says more than its message.
            span.setStatus(StatusCode.ERROR, failure.getClass().getName());
        }
    }

    /**
     * What a span's work came to.
     *
     * @param span    the span, still open
     * @param result  what the work returned, or {@code null} when it threw
     * @param failure what the work threw, or {@code null}
     */
    record SpanResult<T>(Span span, T result, RuntimeException failure) {
    }
}
