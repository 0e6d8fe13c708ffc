package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.Requests;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The spans of a kvm2 provider, read from the SDK's in-memory exporter: one per operation, one per
 * download (a child of its create), with host, volume, the URL's host only, whether a digest was
 * configured, and the bytes; failures set the status. No URL path, query or user information ever
 * appears in an attribute, a status, an event or an error message.
 */
class TracingTest {
    private static final String SECRET_PATH = "/private/tenant-7/debian-12.qcow2";
    private static final String SECRET_URL_TAIL = SECRET_PATH + "?token=hunter22&sig=s3cr3tsig";
    private static final List<String> SECRETS = List.of("alice", "pa55word", "private", "tenant-7", "hunter22",
            "s3cr3tsig", "token", "sig=", "debian-12.qcow2");

    private final Kvm2Fixture fixture = Kvm2Fixture.standard();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aCreateThatFetchesHasADownloadSpanAsItsChild() {
        fixture.create("proxy-1");

        SpanData create = span("kvm2.create");
        SpanData download = span("kvm2.download");
        assertThat(download.getParentSpanId()).isEqualTo(create.getSpanId());
        assertThat(download.getTraceId()).isEqualTo(create.getTraceId());
        assertThat(download.getKind()).isEqualTo(SpanKind.CLIENT);
        assertThat(download.getAttributes().asMap()).containsAllEntriesOf(Map.of(
                Kvm2Telemetry.ENTRY, Kvm2Fixture.ENTRY,
                Kvm2Telemetry.HOST, "host-1",
                Kvm2Telemetry.VOLUME, fixture.baseVolume,
                Kvm2Telemetry.URL_HOST, "127.0.0.1",
                Kvm2Telemetry.SHA256_CONFIGURED, true,
                Kvm2Telemetry.BYTES, (long) IMAGE_BYTES.length,
                Kvm2Telemetry.IMAGE_BYTES, (long) IMAGE_BYTES.length));
        assertThat(download.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(create.getAttributes().asMap()).containsAllEntriesOf(Map.of(
                Kvm2Telemetry.ENTRY, Kvm2Fixture.ENTRY,
                Kvm2Telemetry.HOST, "host-1",
                Kvm2Telemetry.INSTANCE, "proxy-1"));
    }

    @Test
    void aCreateOfACachedImageHasNoDownloadSpan() {
        fixture.cacheBaseImage();

        fixture.create("proxy-1");

        assertThat(fixture.spans()).extracting(SpanData::getName).containsExactly("kvm2.create");
    }

    @Test
    void getDeleteAndListManagedHaveSpansNamingTheHostAndInstance() {
        fixture.cacheBaseImage();
        String id = fixture.create("proxy-1");
        fixture.spans.reset();

        fixture.provider.get(id, Requests.deadline());
        fixture.provider.listManaged(Requests.deadline());
        fixture.provider.delete(id, Requests.deadline());

        assertThat(fixture.spans()).extracting(SpanData::getName)
                .containsExactly("kvm2.get", "kvm2.listManaged", "kvm2.delete");
        for (String name : List.of("kvm2.get", "kvm2.delete")) {
            assertThat(span(name).getAttributes().asMap()).containsAllEntriesOf(Map.of(
                    Kvm2Telemetry.HOST, "host-1", Kvm2Telemetry.INSTANCE, "host-1/proxy-1"));
        }
        assertThat(span("kvm2.listManaged").getAttributes().get(Kvm2Telemetry.ENTRY)).isEqualTo(Kvm2Fixture.ENTRY);
        assertThat(fixture.spans()).allSatisfy(span ->
                assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET));
    }

    @Test
    void aFailedOperationSetsItsSpansStatusToErrorWithTheKind() {
        ProviderException error = catchProviderException(() -> fixture.provider.get("host-1/gone",
                Requests.deadline()));

        SpanData get = span("kvm2.get");
        assertThat(get.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(get.getStatus().getDescription()).isEqualTo("NOT_FOUND: " + error.detail());
        assertThat(get.getAttributes().get(Kvm2Telemetry.ERROR_KIND)).isEqualTo("NOT_FOUND");
    }

    @Test
    void aFailedDownloadSetsTheStatusOfTheDownloadAndTheCreate() {
        try (Kvm2Fixture wrong = Kvm2Fixture.with(settings -> settings.withPinnedDigest("0".repeat(64)))) {
            catchProviderException(() -> wrong.create("proxy-1"));

            assertThat(wrong.spans()).extracting(SpanData::getName).containsExactly("kvm2.download", "kvm2.create");
            for (SpanData span : wrong.spans()) {
                assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
                assertThat(span.getStatus().getDescription()).startsWith("PERMANENT: ").contains("sha256");
            }
            assertThat(wrong.spans().get(0).getAttributes().get(Kvm2Telemetry.SHA256_CONFIGURED)).isTrue();
        }
    }

    @Test
    void aUrlImageShowsNeitherItsPathNorItsQueryNorItsUserInformationAnywhere() {
        fixture.server.serve(SECRET_PATH, IMAGE_BYTES);
        String url = "http://alice:pa55word@127.0.0.1:" + fixturePort() + SECRET_URL_TAIL;

        fixture.provider.create(Kvm2Fixture.request("proxy-1", url), Requests.deadline());
        fixture.server.status(SECRET_PATH, 404);
        ProviderException probe = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-2", url.replace("hunter22", "hunter22x")), Requests.deadline()));
        fixture.server.serveCutOff(SECRET_PATH, IMAGE_BYTES, 100);
        ProviderException cutOff = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-3", url.replace("hunter22", "hunter22y")), Requests.deadline()));

        assertThat(span("kvm2.download").getAttributes().get(Kvm2Telemetry.URL_HOST)).isEqualTo("127.0.0.1");
        assertThat(probe.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(cutOff.kind()).isEqualTo(ErrorKind.TRANSIENT);
        List<String> shown = new ArrayList<>();
        for (SpanData span : fixture.spans()) {
            span.getAttributes().forEach((key, value) -> shown.add(key.getKey() + "=" + value));
            shown.add(span.getName());
            shown.add(span.getStatus().getDescription());
            for (EventData event : span.getEvents()) {
                shown.add(event.getName());
                event.getAttributes().forEach((key, value) -> shown.add(key.getKey() + "=" + value));
            }
        }
        for (Throwable error : List.<Throwable>of(probe, cutOff)) {
            for (Throwable cause = error; cause != null; cause = cause.getCause()) {
                shown.add(cause.toString());
                for (Throwable suppressed : cause.getSuppressed()) {
                    shown.add(suppressed.toString());
                }
            }
        }
        assertThat(shown).isNotEmpty().allSatisfy(text -> assertThat(text).doesNotContain(SECRETS));
        assertThat(fixture.server.gets(SECRET_PATH)).isGreaterThanOrEqualTo(2);
    }

    private SpanData span(String name) {
        return fixture.spans().stream().filter(span -> span.getName().equals(name)).reduce((first, second) -> second)
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + fixture.spans()));
    }

    private String fixturePort() {
        String url = fixture.server.url("/");
        return url.substring(url.lastIndexOf(':') + 1, url.length() - 1);
    }
}
