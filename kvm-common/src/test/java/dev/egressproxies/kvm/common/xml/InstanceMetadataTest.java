package dev.egressproxies.kvm.common.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.ValueSource;

class InstanceMetadataTest {
    private static final Instant CREATED = Instant.parse("2024-05-06T07:08:09Z");
    private static final String ENTRY = "lab";

    /** The element as the domain XML carries it, cut out of a freshly built domain. */
    private static String elementOf(InstanceMetadata metadata) {
        String domain = DomainXml.of(new DomainDefinition("n", 1, 1, HostPlatform.defaultsFor(DomainType.KVM), false,
                "/d", "/s", "b", metadata));
        return domain.substring(domain.indexOf("<ep:instance"), domain.indexOf("</ep:instance>") + "</ep:instance>".length());
    }

    @Test
    void keepsWholeSeconds() {
        assertThat(new InstanceMetadata("u", Instant.parse("2024-05-06T07:08:09.987654Z"), ENTRY).createdAt())
                .isEqualTo(CREATED);
    }

    @Test
    void refusesABlankEntry() {
        assertThatThrownBy(() -> new InstanceMetadata("u", CREATED, " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("provider entry is blank");
    }

    @Nested
    class Entry {
        @Test
        void aDomainIsCreatedThroughTheEntryItsMetadataNames() {
            InstanceMetadata metadata = new InstanceMetadata("u", CREATED, ENTRY);

            assertThat(metadata.createdThrough(ENTRY)).isTrue();
            assertThat(metadata.createdThrough("lab2")).isFalse();
            assertThat(metadata.createdThrough("LAB")).as("entry names are compared exactly").isFalse();
        }

        @Test
        void aDomainDefinedBeforeEntriesWereRecordedIsReadWithoutEntryAndBelongsToNone() {
            String preScoping = "<instance><uid>u-1</uid><created>2024-05-06T07:08:09Z</created></instance>";

            InstanceMetadata read = InstanceMetadata.parse(preScoping);

            assertThat(read).isEqualTo(new InstanceMetadata("u-1", CREATED, Optional.empty()));
            assertThat(read.createdThrough(ENTRY)).isFalse();
        }

        @ParameterizedTest
        @FieldSource("dev.egressproxies.kvm.common.xml.HostileText#VALUES")
        void hostileEntryNamesReadBackUnchanged(String entry) {
            InstanceMetadata read = InstanceMetadata.parse(elementOf(new InstanceMetadata("u", CREATED, entry)));

            assertThat(read.entry()).contains(entry.strip());
        }
    }

    @Nested
    class Placement {
        @Test
        void machineTypeImageAndUserDataDigestReadBackAsWritten() {
            InstanceMetadata written = new InstanceMetadata("u", CREATED, Optional.of(ENTRY), "small",
                    "https://images.example.org/debian-12.qcow2", "ab".repeat(32));

            String element = elementOf(written);

            assertThat(InstanceMetadata.parse(element)).isEqualTo(written);
            assertThat(element).contains("<ep:machineType>small</ep:machineType>",
                    "<ep:userDataSha256>" + "ab".repeat(32) + "</ep:userDataSha256>");
        }

        @Test
        void aDomainDefinedBeforeThePlacementWasRecordedReadsItAsUnknown() {
            String older = "<instance><uid>u-1</uid><created>2024-05-06T07:08:09Z</created><entry>lab</entry>"
                    + "</instance>";

            InstanceMetadata read = InstanceMetadata.parse(older);

            assertThat(read.machineType()).isEmpty();
            assertThat(read.image()).isEmpty();
            assertThat(read.userDataSha256()).isEmpty();
        }

        @Test
        void unknownValuesAreNotWritten() {
            assertThat(elementOf(new InstanceMetadata("u", CREATED, ENTRY)))
                    .doesNotContain("machineType", "image", "userDataSha256");
        }
    }

    @Nested
    class RoundTrip {
        @ParameterizedTest
        @FieldSource("dev.egressproxies.kvm.common.xml.HostileText#VALUES")
        void readsBackWhatWasWrittenWithItsNamespace(String uid) {
            InstanceMetadata written = new InstanceMetadata(uid, CREATED, ENTRY);

            InstanceMetadata read = InstanceMetadata.parse(elementOf(written));

            // Surrounding whitespace is formatting, not part of the UID.
            assertThat(read).isEqualTo(new InstanceMetadata(uid.strip(), CREATED, ENTRY));
        }

        @Test
        void readsTheFormLibvirtReturnsWithoutNamespace() {
            String libvirtForm = "<instance>\n  <uid>u-1</uid>\n  <created>2024-05-06T07:08:09Z</created>\n"
                    + "  <entry>lab</entry>\n</instance>\n";

            assertThat(InstanceMetadata.parse(libvirtForm)).isEqualTo(new InstanceMetadata("u-1", CREATED, ENTRY));
        }

        @Test
        void toleratesWhitespaceOrderAndOtherPrefixes() {
            String xml = "<x:instance xmlns:x='" + InstanceMetadata.NAMESPACE + "'>\n\t<x:created>\n 2024-05-06T09:08:09+02:00 \n"
                    + "</x:created>\r\n <x:entry> lab\n</x:entry>  <x:uid>  u-2\n</x:uid>  <x:future>ignored</x:future>"
                    + "</x:instance>";

            assertThat(InstanceMetadata.parse(xml)).isEqualTo(new InstanceMetadata("u-2", CREATED, ENTRY));
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
                "<instance><uid>u</uid><created>2024-05-06T07:08:09Z</created>",
                "<instance><uid>u</uid><created>2024-05-06T07:08:09Z</created><entry> </entry></instance>"})
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
            String huge = "<instance><uid>" + "u".repeat(InstanceMetadata.MAXIMUM_CHARACTERS)
                    + "</uid><created>2024-05-06T07:08:09Z</created></instance>";

            assertThatThrownBy(() -> InstanceMetadata.parse(huge)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("more than the " + InstanceMetadata.MAXIMUM_CHARACTERS);
        }
    }
}
