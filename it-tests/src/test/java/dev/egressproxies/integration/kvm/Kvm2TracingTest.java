package dev.egressproxies.integration.kvm;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Instance;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm2.Kvm2Provider;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kvm2} backend's spans on the real stack, read from the SDK's in-memory exporter: a
 * create that fetches an image whose URL carries user information, a secret path and a token
 * query, then get, listManaged and delete of that instance, and two failing creates (one whose
 * fetch breaks off mid-body, one whose size probe gets a 404). Every operation has its span with
 * host, instance and volume; the download's names the URL's host only, whether a digest was
 * configured, and the bytes; failures set the status to ERROR. The word {@value #SECRET}, which
 * every secret part of the URLs holds, appears in no span name, attribute, event, link or status,
 * and in no error message, cause or suppressed error.
 */
@Tag("integration")
@ExtendWith(NoKvmLeftovers.class)
class Kvm2TracingTest {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final String SECRET = "secret";
    private static final String USER_INFORMATION = "user:" + SECRET;
    private static final String KEY = "traced";
    private static final String IMAGE_PATH = "/" + SECRET + "-path/disk.qcow2";
    private static final String BROKEN_PATH = "/" + SECRET + "-path/broken.qcow2";
    private static final String MISSING_PATH = "/" + SECRET + "-path/missing.qcow2";
    private static final String QUERY = "?token=" + SECRET;

    @TempDir
    Path temporary;

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
            .build();
    private Kvm2StackEntry entry;

    @AfterEach
    void removeWhatTheTestMade() {
        if (entry != null) {
            entry.close();
        }
        openTelemetry.close();
    }

    @Test
    void everyOperationHasASpanAndNoSecretOfTheUrlShowsAnywhere() {
        entry = Kvm2StackEntry.create("spans", temporary);
        byte[] image = entry.stackImage();
        entry.images().serve(IMAGE_PATH, image);
        entry.images().serveCutOff(BROKEN_PATH, image, image.length / 3);
        entry.images().status(MISSING_PATH, 404);
        Kvm2Provider kvm2 = entry.provider(entry.config().catalogueImage(KEY, "{url: "
                + KvmTestConfig.quoted(entry.urlWithUserInformation(USER_INFORMATION, IMAGE_PATH + QUERY))
                + ", sha256: " + TestBytes.sha256(image) + ", firmware: bios}"), openTelemetry);
        String name = entry.instance("vm");

        String id = kvm2.create(entry.request(name, KEY), deadline());
        Instance instance = kvm2.get(id, deadline());
        List<Instance> managed = kvm2.listManaged(deadline());
        kvm2.delete(id, deadline());
        ProviderException cutOff = catchProviderException(() -> kvm2.create(entry.request(entry.instance("broken"),
                entry.urlWithUserInformation(USER_INFORMATION, BROKEN_PATH + QUERY)), deadline()));
        ProviderException missing = catchProviderException(() -> kvm2.create(entry.request(
                entry.instance("missing"), entry.urlWithUserInformation(USER_INFORMATION, MISSING_PATH + QUERY)),
                deadline()));

        assertThat(instance.name()).isEqualTo(name);
        assertThat(managed).extracting(Instance::id).contains(id);
        assertThat(cutOff.kind()).as("kind of: %s", cutOff.getMessage()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(missing.kind()).as("kind of: %s", missing.getMessage()).isEqualTo(ErrorKind.PERMANENT);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        spans.forEach(span -> System.out.println("[kvm2 spans] " + span.getName() + " " + span.getAttributes().asMap()
                + " " + span.getStatus()));
        assertThat(spans).extracting(SpanData::getName).containsExactly("kvm2.download", "kvm2.create", "kvm2.get",
                "kvm2.listManaged", "kvm2.delete", "kvm2.download", "kvm2.create", "kvm2.create");

        SpanData download = spans.get(0);
        SpanData create = spans.get(1);
        assertThat(download.getParentSpanId()).as("the download's parent").isEqualTo(create.getSpanId());
        assertThat(download.getAttributes().asMap()).containsAllEntriesOf(Map.of(
                AttributeKey.stringKey("kvm2.host"), KvmTestConfig.HOST,
                AttributeKey.stringKey("kvm2.volume"), entry.baseVolume(KEY, entry.urlWithUserInformation(USER_INFORMATION, IMAGE_PATH + QUERY)),
                AttributeKey.stringKey("kvm2.url_host"), "127.0.0.1",
                AttributeKey.booleanKey("kvm2.sha256_configured"), true,
                AttributeKey.longKey("kvm2.bytes"), (long) image.length));
        assertThat(create.getAttributes().asMap()).containsAllEntriesOf(Map.of(
                AttributeKey.stringKey("kvm2.host"), KvmTestConfig.HOST,
                AttributeKey.stringKey("kvm2.instance"), name,
                AttributeKey.stringKey("kvm2.entry"), entry.name()));
        for (SpanData span : List.of(spans.get(2), spans.get(4))) {
            assertThat(span.getAttributes().asMap()).as(span.getName()).containsAllEntriesOf(Map.of(
                    AttributeKey.stringKey("kvm2.host"), KvmTestConfig.HOST,
                    AttributeKey.stringKey("kvm2.instance"), id));
        }
        assertThat(spans.subList(0, 5)).allSatisfy(span ->
                assertThat(span.getStatus().getStatusCode()).as(span.getName()).isEqualTo(StatusCode.UNSET));

        SpanData failedDownload = spans.get(5);
        assertThat(failedDownload.getAttributes().asMap()).containsAllEntriesOf(Map.of(
                AttributeKey.stringKey("kvm2.url_host"), "127.0.0.1",
                AttributeKey.booleanKey("kvm2.sha256_configured"), false));
        assertThat(failedDownload.getAttributes().get(AttributeKey.longKey("kvm2.bytes"))).isNull();
        assertThat(spans.subList(5, 8)).allSatisfy(span -> {
            assertThat(span.getStatus().getStatusCode()).as(span.getName()).isEqualTo(StatusCode.ERROR);
            assertThat(span.getAttributes().get(AttributeKey.stringKey("kvm2.error_kind"))).isNotNull();
        });
        assertThat(spans.get(6).getStatus().getDescription()).startsWith("TRANSIENT: ");
        assertThat(spans.get(7).getStatus().getDescription()).startsWith("PERMANENT: ").contains("HTTP 404");

        assertThat(shown(spans, List.of(cutOff, missing))).isNotEmpty()
                .allSatisfy(text -> assertThat(text).doesNotContainIgnoringCase(SECRET));
        assertThat(entry.images().gets(IMAGE_PATH)).as("GETs of the traced image").isEqualTo(1);
        assertThat(entry.domains()).as("domains left").isEmpty();
    }

    /** Every text the spans and errors show: names, attributes, events, links, statuses, messages. */
    private static List<String> shown(List<SpanData> spans, List<ProviderException> errors) {
        List<String> shown = new ArrayList<>();
        for (SpanData span : spans) {
            shown.add(span.getName());
            addAttributes(shown, span.getAttributes());
            shown.add(span.getStatus().getDescription());
            for (EventData event : span.getEvents()) {
                shown.add(event.getName());
                addAttributes(shown, event.getAttributes());
            }
            for (LinkData link : span.getLinks()) {
                addAttributes(shown, link.getAttributes());
            }
            addAttributes(shown, span.getResource().getAttributes());
        }
        for (Throwable error : errors) {
            addChain(shown, error);
        }
        return shown;
    }

    private static void addChain(List<String> shown, Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            shown.add(cause.toString());
            for (Throwable suppressed : cause.getSuppressed()) {
                addChain(shown, suppressed);
            }
        }
    }

    private static void addAttributes(List<String> shown, Attributes attributes) {
        attributes.forEach((key, value) -> shown.add(key.getKey() + "=" + value));
    }

    private static Deadline deadline() {
        return Deadline.after(CALL_TIMEOUT);
    }
}
