package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.kvm.common.testing.FakeLibvirtHost;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import dev.egressproxies.kvm2.config.CatalogueImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A compressed image is decompressed on its way into the base volume, whose length is not known
 * before the image ends (so the upload runs until the end and the refresh reads the real size);
 * the pinned digest and the marker are the published file's.
 */
class CompressedCatalogueImageTest {
    private static final String GZ_PATH = "/images/debian-12.qcow2.gz";
    private static final byte[] GZ_BYTES = gzip(IMAGE_BYTES);

    @Test
    void aGzipImageIsDecompressedIntoTheBaseAndPinnedByThePublishedDigest() {
        try (Kvm2Fixture fixture = Kvm2Fixture.with(settings -> settings.withImage("gz", new CatalogueImage(
                settings.images().get(Kvm2Fixture.IMAGE).url().replace(Kvm2Fixture.IMAGE_PATH, GZ_PATH), null,
                TestBytes.sha256(GZ_BYTES), null, null, null, "bios")))) {
            fixture.server.serve(GZ_PATH, GZ_BYTES);
            String volume = fixture.baseVolume("gz");

            fixture.provider.create(Kvm2Fixture.request("proxy-1", "gz"), Requests.deadline());

            FakeLibvirtHost.VolumeRecord base = fixture.host.volume(POOL, volume);
            assertThat(base.content).isEqualTo(IMAGE_BYTES);
            assertThat(base.capacity).as("declared as one byte, grown by the upload").isEqualTo(1);
            assertThat(fixture.host.callCounts()).containsEntry("uploadVolumeUntilEnd", 1);
            assertThat(new String(fixture.host.volume(POOL, volume + ".sha256").content, StandardCharsets.US_ASCII))
                    .isEqualTo(fixture.markerText("gz", TestBytes.sha256(GZ_BYTES)));
            assertThat(fixture.spans().get(0).getAttributes().get(Kvm2Telemetry.BYTES)).isEqualTo(GZ_BYTES.length);
            assertThat(fixture.spans().get(0).getAttributes().get(Kvm2Telemetry.IMAGE_BYTES))
                    .isEqualTo(IMAGE_BYTES.length);
        }
    }

    private static byte[] gzip(byte[] content) {
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(compressed)) {
            out.write(content);
        } catch (IOException impossible) {
            throw new UncheckedIOException(impossible);
        }
        return compressed.toByteArray();
    }
}
