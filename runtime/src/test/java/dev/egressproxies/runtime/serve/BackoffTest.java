package dev.egressproxies.runtime.serve;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void doublesPerFailureUpToTheCap() {
        Backoff backoff = new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(30));
        assertThat(backoff.after(1)).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.after(2)).isEqualTo(Duration.ofSeconds(10));
        assertThat(backoff.after(3)).isEqualTo(Duration.ofSeconds(20));
        assertThat(backoff.after(4)).isEqualTo(Duration.ofSeconds(30));
        assertThat(backoff.after(1000)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void refusesACapBelowTheBase() {
        assertThatThrownBy(() -> new Backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .hasMessageContaining("0 < base <= cap");
    }
}
