package dev.egressproxies.kvm.common.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;

class InstanceMetadataTest {
    private static final Instant CREATED = Instant.parse("2024-05-06T07:08:09Z");

    /** The element as the domain XML carries it, cut out of a freshly built domain. */
    private static String elementOf(InstanceMetadata metadata) {
        String domain = DomainXml.of(new DomainDefinition("n", 1, 1, HostPlatform.defaultsFor(DomainType.KVM), false,
                "/d", "/s", "b", metadata));
        return domain.substring(domain.indexOf("<ep:instance"), domain.indexOf("</ep:instance>") + "</ep:instance>".length());
    }

    @Test
    void keepsWholeSeconds() {
        assertThat(new InstanceMetadata("u", Instant.parse("2024-05-06T07:08:09.987654Z")).createdAt())
                .isEqualTo(CREATED);
    }

    @Nested
    class RoundTrip {
        @ParameterizedTest
        @FieldSource("dev.egressproxies.kvm.common.xml.HostileText#VALUES")
        void readsBackWhatWasWrittenWithItsNamespace(String uid) {
            InstanceMetadata written = new InstanceMetadata(uid, CREATED);

            InstanceMetadata read = InstanceMetadata.parse(elementOf(written));

            // Surrounding whitespace is formatting, not part of the UID.
            assertThat(read).isEqualTo(new InstanceMetadata(uid.strip(), CREATED));
        }

        @Test
        void readsTheFormLibvirtReturnsWithoutNamespace() {
            String libvirtForm = "<instance>\n  <uid>u-1</uid>\n  <created>2024-05-06T07:08:09Z</created>\n</instance>\n";

            assertThat(InstanceMetadata.parse(libvirtForm)).isEqualTo(new InstanceMetadata("u-1", CREATED));
        }

        @Test
        void toleratesWhitespaceOrderAndOtherPrefixes() {
            String xml = "<x:instance xmlns:x='" + InstanceMetadata.NAMESPACE + "'>\n\t<x:created>\n 2024-05-06T09:08:09+02:00 \n"
                    + "</x:created>\r\n   <x:uid>  u-2\n</x:uid>  <x:future>ignored</x:future></x:instance>";

            assertThat(InstanceMetadata.parse(xml)).isEqualTo(new InstanceMetadata("u-2", CREATED));
        }

        @Test
        void acceptsLowercaseSeparatorsAsRfc3339Allows() {
            String xml = "<instance><uid>u</uid><created>2024-05-06t07:08:09z</created></instance>";

            assertThat(InstanceMetadata.parse(xml).createdAt()).isEqualTo(CREATED);
        }
    }

    @Nested
    class Malformed {
        @ParameterizedTest
        @ValueSource(strings = {
                "",
                "not xml",
                "<instance><uid>u</uid></instance>",
                "<instance><created>2024-05-06T07:08:09Z</created></instance>",
                "<instance><uid>  </uid><created>2024-05-06T07:08:09Z</created></instance>",
                "<instance><uid>u</uid><created>yesterday</created></instance>",
                "<instance><uid>u</uid><created>2024-05-06 07:08:09</created></instance>",
                "<other><uid>u</uid><created>2024-05-06T07:08:09Z</created></other>",
                "<o:instance xmlns:o='urn:other'><o:uid>u</o:uid><o:created>2024-05-06T07:08:09Z</o:created></o:instance>",
                "<instance><uid>u</uid><created>2024-05-06T07:08:09Z</created>"})
        void isRefusedWithAnActionableMessage(String xml) {
            assertThatThrownBy(() -> InstanceMetadata.parse(xml))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("metadata of this domain is malformed")
                    .hasMessageContaining("virsh metadata");
        }

        @Test
        void refusesDoctypesSoNoEntityExpands() {
            String billionLaughs = "<!DOCTYPE instance [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;\">]>"
                    + "<instance><uid>&b;</uid><created>2024-05-06T07:08:09Z</created></instance>";

            assertThatThrownBy(() -> InstanceMetadata.parse(billionLaughs)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("DOCTYPE");
        }

        @Test
        void refusesExternalEntities() {
            String external = "<!DOCTYPE instance [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                    + "<instance><uid>&x;</uid><created>2024-05-06T07:08:09Z</created></instance>";

            assertThatThrownBy(() -> InstanceMetadata.parse(external)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void refusesOversizedInputBeforeParsing() {
            String huge = "<instance><uid>" + "u".repeat(InstanceMetadataXml.MAXIMUM_CHARACTERS)
                    + "</uid><created>2024-05-06T07:08:09Z</created></instance>";

            assertThatThrownBy(() -> InstanceMetadata.parse(huge)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("more than the " + InstanceMetadataXml.MAXIMUM_CHARACTERS);
        }
    }
}
