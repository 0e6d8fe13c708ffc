package dev.egressproxies.kvm.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Reading the platform's metadata back from libvirt: any prefix, bounded, and strict about content. */
class InstanceMetadataReaderTest {
    private static final String NS = InstanceMetadata.NAMESPACE;

    @Test
    void theElementIsReadWhateverPrefixLibvirtWritesItWith() {
        String prefixed = "<ep:instance xmlns:ep=\"" + NS + "\">\n  <ep:uid>abc-1</ep:uid>\n"
                + "  <ep:created>2025-01-31T12:00:00Z</ep:created>\n</ep:instance>";
        String defaultNamespace = "<instance xmlns='" + NS + "'><uid>abc-1</uid><created>2025-01-31T12:00:00Z</created>"
                + "</instance>";

        InstanceMetadata expected = new InstanceMetadata("abc-1", Instant.parse("2025-01-31T12:00:00Z"));
        assertThat(InstanceMetadataReader.read(prefixed)).isEqualTo(expected);
        assertThat(InstanceMetadataReader.read(defaultNamespace)).isEqualTo(expected);
    }

    @Test
    void whatTheScriptsDefineIsRead() {
        // scripts/define-many-domains.sh writes this shape for the benchmark.
        String fromScript = "<ep:instance xmlns:ep=\"" + NS + "\">\n      <ep:uid>6f0c3b4e-1d2a-4f5b-9c8d-0e1f2a3b4c5d"
                + "</ep:uid>\n      <ep:created>2025-01-31T12:00:00Z</ep:created>\n    </ep:instance>";

        assertThat(InstanceMetadataReader.read(fromScript).uid()).isEqualTo("6f0c3b4e-1d2a-4f5b-9c8d-0e1f2a3b4c5d");
    }

    @Test
    void anotherNamespaceOrElementIsRefused() {
        assertRefused("<ep:instance xmlns:ep='https://example.org/other'><ep:uid>a</ep:uid></ep:instance>",
                "not <instance> in " + NS);
        assertRefused("<ep:other xmlns:ep='" + NS + "'/>", "is <ep:other>");
    }

    @Test
    void missingOrInvalidValuesAreRefused() {
        assertRefused("<i:instance xmlns:i='" + NS + "'><i:created>2025-01-31T12:00:00Z</i:created></i:instance>",
                "has no uid element");
        assertRefused("<i:instance xmlns:i='" + NS + "'><i:uid>a b</i:uid><i:created>2025-01-31T12:00:00Z</i:created>"
                + "</i:instance>", "uid is not 1 to 128 printable ASCII characters");
        assertRefused("<i:instance xmlns:i='" + NS + "'><i:uid>a</i:uid><i:uid>b</i:uid></i:instance>",
                "more than one uid element");
        assertRefused("<i:instance xmlns:i='" + NS + "'><i:uid>a</i:uid><i:created>now</i:created></i:instance>",
                "'now' is not an ISO-8601 instant");
        assertRefused("<i:instance xmlns:i='" + NS + "'><i:uid>a</i:uid>", "not well-formed XML");
    }

    @Test
    void anOversizedElementIsRefusedWithoutParsing() {
        String huge = "<i:instance xmlns:i='" + NS + "'><i:uid>" + "a".repeat(InstanceMetadataReader.MAXIMUM_CHARACTERS)
                + "</i:uid></i:instance>";

        assertRefused(huge, "the metadata element is " + huge.length() + " characters long");
    }

    @Test
    void documentTypeDeclarationsAreRefused() {
        String externalEntity = "<!DOCTYPE i [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                + "<i:instance xmlns:i='" + NS + "'><i:uid>&x;</i:uid><i:created>2025-01-31T12:00:00Z</i:created>"
                + "</i:instance>";

        assertRefused(externalEntity, "not well-formed XML");
    }

    private static void assertRefused(String xml, String reason) {
        assertThatThrownBy(() -> InstanceMetadataReader.read(xml)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(reason);
    }
}
