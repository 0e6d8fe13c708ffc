package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Checks the file name rules and that a file's content cannot change behind its back. */
class IsoFileTest {
    @ParameterizedTest
    @ValueSource(strings = {"user-data", "meta-data", "vendor-data", "network-config", "a", "9", "_x", "a.b.c",
        "x_y-z.0"})
    void acceptsLowercaseNamesWithDigitsDotsUnderscoresAndDashes(String name) {
        assertThat(IsoFile.ofUtf8(name, "").name()).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"User-Data", "USER", "a b", "a/b", "a\\b", "a;1", ".hidden", "trailing.", ".", "..",
        "ü", "tab\t", "new\nline", "a*"})
    void refusesOtherNamesSayingWhatIsAllowed(String name) {
        assertThatThrownBy(() -> IsoFile.ofUtf8(name, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'")
                .hasMessageContaining("lowercase letters a-z, digits, '.', '_' and '-'");
    }

    @Test
    void refusesEmptyAndOverlongNamesSayingTheLimit() {
        assertThatThrownBy(() -> IsoFile.ofUtf8("", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("use 1 to 64");
        assertThat(IsoFile.ofUtf8("a".repeat(64), "").name()).hasSize(64);
        assertThatThrownBy(() -> IsoFile.ofUtf8("a".repeat(65), "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("65 characters long: use 1 to 64");
    }

    @Test
    void copiesContentInAndOut() {
        byte[] content = {1, 2, 3};
        IsoFile file = IsoFile.of("x", content);
        content[0] = 9;
        file.content()[1] = 9;
        assertThat(file.content()).containsExactly(1, 2, 3);
        assertThat(file.size()).isEqualTo(3);
    }

    @Test
    void encodesTextAsUtf8WithoutByteOrderMark() {
        assertThat(IsoFile.ofUtf8("x", "kůň").content()).isEqualTo("kůň".getBytes(StandardCharsets.UTF_8))
                .startsWith('k');
    }

    @Test
    void comparesByNameAndContent() {
        assertThat(IsoFile.ofUtf8("x", "a")).isEqualTo(IsoFile.of("x", new byte[] {'a'}))
                .hasSameHashCodeAs(IsoFile.of("x", new byte[] {'a'}))
                .isNotEqualTo(IsoFile.ofUtf8("x", "b"))
                .isNotEqualTo(IsoFile.ofUtf8("y", "a"))
                .hasToString("IsoFile[x, 1 bytes]");
    }
}
