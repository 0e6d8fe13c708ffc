package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks the volume rules: label, unique names, bounded size and count, representable time. */
class IsoVolumeTest {
    private static final Instant NOW = Instant.parse("2024-01-01T00:00:00Z");

    @ParameterizedTest
    @ValueSource(strings = {"cidata", "CIDATA", "config-2", "a", "sixteen_chars_ok"})
    void acceptsLabelsOfUpToSixteenLettersDigitsUnderscoresAndDashes(String label) {
        assertThat(new IsoVolume(label, NOW, List.of()).label()).isEqualTo(label);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "seventeen_chars_x", "ci data", "ci.data", "čidata"})
    void refusesOtherLabelsSayingWhatIsAllowed(String label) {
        assertThatThrownBy(() -> new IsoVolume(label, NOW, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("volume label '" + label + "'")
                .hasMessageContaining("1 to 16 ASCII letters, digits, '_' and '-'");
    }

    @Test
    void recordsTheLabelAsDCharactersInThePrimaryDescriptor() {
        assertThat(new IsoVolume("config-2", NOW, List.of()).primaryVolumeIdentifier()).isEqualTo("CONFIG_2");
    }

    @Test
    void refusesTheSameNameTwice() {
        List<IsoFile> files = List.of(IsoFile.ofUtf8("user-data", "a"), IsoFile.ofUtf8("user-data", "b"));
        assertThatThrownBy(() -> new IsoVolume("cidata", NOW, files))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("file name 'user-data' appears twice: every file in the volume needs its own name");
    }

    @Test
    void acceptsThirtyTwoMebibytesOfContentAndRefusesOneByteMore() {
        int half = IsoVolume.MAXIMUM_CONTENT_BYTES / 2;
        List<IsoFile> files = new ArrayList<>(List.of(IsoFile.of("a", new byte[half]), IsoFile.of("b", new byte[half])));
        assertThat(new IsoVolume("cidata", NOW, files).files()).hasSize(2);

        files.add(IsoFile.of("c", new byte[1]));
        assertThatThrownBy(() -> new IsoVolume("cidata", NOW, files))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the files hold 33554433 bytes, over the limit of 33554432 for an ISO volume built in"
                        + " memory: shrink them");
    }

    @Test
    void refusesMoreFilesThanTheLimit() {
        List<IsoFile> files = IntStream.rangeClosed(0, IsoVolume.MAXIMUM_FILE_COUNT)
                .mapToObj(index -> IsoFile.ofUtf8("f" + index, "")).toList();
        assertThatThrownBy(() -> new IsoVolume("cidata", NOW, files))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1024 files");
    }

    @Test
    void refusesATimeTheDirectoryRecordsCannotHold() {
        assertThatThrownBy(() -> new IsoVolume("cidata", Instant.parse("2200-01-01T00:00:00Z"), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("outside the years 1900 to 2155");
    }

    @Test
    void copiesTheFileList() {
        List<IsoFile> files = new ArrayList<>(List.of(IsoFile.ofUtf8("a", "")));
        IsoVolume volume = new IsoVolume("cidata", NOW, files);
        files.add(IsoFile.ofUtf8("b", ""));
        assertThat(volume.files()).hasSize(1);
    }
}
