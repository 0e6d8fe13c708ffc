package dev.egressproxies.kvm.common.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import dev.egressproxies.kvm.common.image.ImageFetcher.TransferBudget;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FetchAttemptTest {
    @Test
    void userInformationAndFragmentAreStrippedAndTheRestKeptAsWritten() {
        URI url = URI.create("https://alice:p%40ss@images.example.org:8443/a%20b/disk.qcow2?sig=x%2By&e=1#part");

        assertThat(FetchAttempt.withoutUserInformation(url))
                .isEqualTo(URI.create("https://images.example.org:8443/a%20b/disk.qcow2?sig=x%2By&e=1"));
    }

    @Test
    void anIpv6HostKeepsItsBrackets() {
        assertThat(FetchAttempt.withoutUserInformation(URI.create("http://u@[::1]:8080/disk")))
                .isEqualTo(URI.create("http://[::1]:8080/disk"));
    }

    @Test
    void durationsReadShort() {
        assertThat(FetchAttempt.text(Duration.ofMinutes(20))).isEqualTo("20m");
        assertThat(FetchAttempt.text(Duration.ofSeconds(90))).isEqualTo("1m30s");
        assertThat(FetchAttempt.text(Duration.ofMillis(1500))).isEqualTo("1s500ms");
        assertThat(FetchAttempt.text(Duration.ofHours(2))).isEqualTo("2h");
    }

    @Test
    void theDefaultBudgetKeepsATenthAtMostThirtySecondsForTheUpload() {
        assertThat(TransferBudget.of(Duration.ofMinutes(20)).bodyLimit()).isEqualTo(Duration.ofSeconds(1170));
        assertThat(TransferBudget.of(Duration.ofSeconds(60)).bodyLimit()).isEqualTo(Duration.ofSeconds(54));
    }
}
