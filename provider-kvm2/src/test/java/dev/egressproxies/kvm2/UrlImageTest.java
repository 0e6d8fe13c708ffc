package dev.egressproxies.kvm2;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_BYTES;
import static dev.egressproxies.kvm2.Kvm2Fixture.IMAGE_PATH;
import static dev.egressproxies.kvm2.Kvm2Fixture.POOL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.testing.InstanceVolumes;
import dev.egressproxies.kvm.common.testing.Requests;
import dev.egressproxies.kvm.common.testing.TestBytes;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * placement.image as an http(s) URL: qcow2 and UEFI, no digest pinned, a base volume named after a
 * hash of the URL; and what is neither a catalogue key nor a URL.
 */
class UrlImageTest {
    private final Kvm2Fixture fixture = Kvm2Fixture.standard();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aUrlIsFetchedAsQcow2AndBootsWithUefi() {
        String url = fixture.server.url(IMAGE_PATH);
        String volume = fixture.urlBaseVolume(url);

        fixture.provider.create(Kvm2Fixture.request("proxy-1", url), Requests.deadline());
        fixture.provider.create(Kvm2Fixture.request("proxy-2", url), Requests.deadline());

        assertThat(fixture.volumes()).contains(volume, volume + ".sha256");
        assertThat(fixture.host.volume(POOL, volume).content).isEqualTo(IMAGE_BYTES);
        assertThat(fixture.server.gets(IMAGE_PATH)).isEqualTo(1);
        assertThat(fixture.host.volume(POOL, InstanceVolumes.overlay(Kvm2Fixture.ENTRY, "proxy-1")).parsed()
                .text("/volume/backingStore/format/@type"))
                .isEqualTo("qcow2");
        assertThat(fixture.host.domain("proxy-1").parsed().text("/domain/os/loader"))
                .isEqualTo("/usr/share/OVMF/OVMF_CODE_4M.fd");
    }

    @Test
    void aUrlAndTheCatalogueEntryOfTheSameFileAreCachedApart() {
        fixture.create("proxy-1");
        fixture.provider.create(Kvm2Fixture.request("proxy-2", fixture.server.url(IMAGE_PATH)),
                Requests.deadline());

        assertThat(fixture.volumes()).filteredOn(name -> name.endsWith(".base.qcow2")).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"windows", "ftp://example.org/disk.qcow2", "example.org/disk.qcow2"})
    void whatIsNeitherAKeyNorAnHttpUrlIsPermanentAndNamesTheKeys(String image) {
        ProviderException error = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-1", image), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.operation()).isEqualTo(Operation.CREATE);
        assertThat(error.instanceId()).isEqualTo("proxy-1");
        assertThat(error.detail()).contains("is neither a key of images of provider entry 'kvm2-test' [debian-12]",
                "nor an http or https URL");
        assertThat(fixture.dialer.dialled()).as("refused before any host is called").isEmpty();
    }

    @Test
    void aUrlThatCannotBeFetchedIsPermanentWithoutRepeatingIt() {
        ProviderException error = catchProviderException(() -> fixture.provider.create(
                Kvm2Fixture.request("proxy-1", "https://user:secret@/no-host/path?q=1"), Requests.deadline()));

        assertThat(error.kind()).isEqualTo(ErrorKind.PERMANENT);
        assertThat(error.detail()).startsWith("placement.image is an http or https URL that cannot be fetched: ")
                .doesNotContain("secret", "no-host", "q=1");
    }
}
