package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BearerTokenTest {
    @TempDir
    Path folder;

    @Test
    void acceptsOnlyTheTokenOfTheFile() throws Exception {
        Path file = Files.writeString(folder.resolve("token"), "s3cret-token-of-24-chars\n");
        BearerToken token = BearerToken.read(file);

        assertThat(token.accepts("Bearer s3cret-token-of-24-chars")).isTrue();
        assertThat(token.accepts("bearer s3cret-token-of-24-chars")).isTrue();
        assertThat(token.accepts("Bearer s3cret-token-of-24-charz")).isFalse();
        assertThat(token.accepts("Basic s3cret-token-of-24-chars")).isFalse();
        assertThat(token.accepts(null)).isFalse();
    }

    @Test
    void refusesAShortOrMissingToken() throws Exception {
        assertThatThrownBy(() -> BearerToken.read(Files.writeString(folder.resolve("short"), "abc")))
                .hasMessageContaining("at least 16");
        assertThatThrownBy(() -> BearerToken.read(folder.resolve("missing"))).hasMessageContaining("cannot be read");
    }
}
