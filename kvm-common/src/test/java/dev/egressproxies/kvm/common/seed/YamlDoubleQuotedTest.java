package dev.egressproxies.kvm.common.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Checks that quoted scalars keep every string intact and the document plain ASCII. */
class YamlDoubleQuotedTest {
    @Test
    void quotesPlainNamesSoYamlCannotReadThemAsNumbersOrBooleans() {
        assertThat(YamlDoubleQuoted.quote("proxy-1")).isEqualTo("\"proxy-1\"");
        assertThat(YamlDoubleQuoted.quote("123")).isEqualTo("\"123\"");
        assertThat(YamlDoubleQuoted.quote("no")).isEqualTo("\"no\"");
    }

    @Test
    void escapesQuotesAndBackslashes() {
        assertThat(YamlDoubleQuoted.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    }

    @Test
    void escapesLineBreaksAndControlCharactersSoNoKeyCanBeInjected() {
        assertThat(YamlDoubleQuoted.quote("x\ninstance-id: evil\t\u0000\u007f"))
                .isEqualTo("\"x\\u000Ainstance-id: evil\\u0009\\u0000\\u007F\"");
    }

    @Test
    void escapesNonAsciiByCodePoint() {
        assertThat(YamlDoubleQuoted.quote("kůň\u2028🐴")).isEqualTo("\"k\\u016F\\u0148\\u2028\\U0001F434\"");
    }

    @Test
    void refusesLoneSurrogates() {
        assertThatThrownBy(() -> YamlDoubleQuoted.quote("a\uD800b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone UTF-16 surrogate at index 1");
    }
}
