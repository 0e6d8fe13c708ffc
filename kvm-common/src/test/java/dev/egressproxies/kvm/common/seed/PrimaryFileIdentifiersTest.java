package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Checks the interchange level 1 names of the primary hierarchy and the 9.3 ordering. */
class PrimaryFileIdentifiersTest {
    @Test
    void mapsNoCloudNamesToEightDotThree() {
        assertThat(PrimaryFileIdentifiers.assign(List.of("meta-data", "network-config", "user-data", "vendor-data")))
                .containsExactly(
                        entry("meta-data", "META_DAT."),
                        entry("network-config", "NETWORK_."),
                        entry("user-data", "USER_DAT."),
                        entry("vendor-data", "VENDOR_D."));
    }

    @Test
    void splitsTheExtensionAtTheLastDotAndMapsOtherDotsToUnderscores() {
        assertThat(PrimaryFileIdentifiers.assign(List.of("archive.tar.gzip", "a.b")))
                .containsEntry("archive.tar.gzip", "ARCHIVE_.GZI")
                .containsEntry("a.b", "A.B");
    }

    @Test
    void numbersCollisionsInPlaceOfTheLastCharacters() {
        List<String> names = IntStream.range(0, 12).mapToObj(index -> "vendor-data" + index).toList();
        assertThat(PrimaryFileIdentifiers.assign(names).values())
                .startsWith("VENDOR_D.", "VENDOR_1.", "VENDOR_2.")
                .contains("VENDOR10.", "VENDOR11.")
                .doesNotHaveDuplicates()
                .allMatch(identifier -> identifier.matches("[A-Z0-9_]{1,8}\\.[A-Z0-9_]{0,3}"));
    }

    @Test
    void ordersNamesThenExtensionsAsIfPaddedWithSpaces() {
        // "a.b" before "a-c": the name "a" compares with "a-c" as "a  ", and space sorts first.
        assertThat(sorted("a-c", "a.b", "b", "a.a", "ab"))
                .containsExactly("a.a", "a.b", "a-c", "ab", "b");
        assertThat(sorted("USER_DAT.", "META_DAT.", "A_C.", "A.B"))
                .containsExactly("A.B", "A_C.", "META_DAT.", "USER_DAT.");
    }

    private static List<String> sorted(String... identifiers) {
        return Stream.of(identifiers).sorted(FileIdentifierOrder.INSTANCE).toList();
    }
}
