package dev.egressproxies.runtime.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class QualifiedIdTest {
    @Test
    void splitsAtTheFirstSlashSoProviderIdsKeepTheirs() {
        QualifiedId id = QualifiedId.parse("kvm-a/host-1/demo");
        assertThat(id.entry()).isEqualTo("kvm-a");
        assertThat(id.providerId()).isEqualTo("host-1/demo");
        assertThat(id).hasToString("kvm-a/host-1/demo");
    }

    @Test
    void rejectsIdsWithoutBothParts() {
        for (String bad : new String[] {"demo", "/demo", "kvm-a/", ""}) {
            assertThatThrownBy(() -> QualifiedId.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ENTRY/PROVIDER-ID");
        }
    }
}
