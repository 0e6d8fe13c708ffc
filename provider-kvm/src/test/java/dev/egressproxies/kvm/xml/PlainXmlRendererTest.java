package dev.egressproxies.kvm.xml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringReader;
import java.time.Instant;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

/** The XML this module writes: well-formed, escaped, and with metadata the reader reads back. */
class PlainXmlRendererTest {
    private static final InstanceMetadata METADATA =
            new InstanceMetadata("uid-'<&>\"", Instant.parse("2025-01-31T12:00:00.123456Z"));

    @Test
    void everyValueIsEscapedAndTheDocumentIsWellFormed() throws Exception {
        DomainDefinition domain = new DomainDefinition("proxy-1", METADATA, "kvm", 2, 1024, "host-model",
                "/fw/CODE&'.fd", "/fw/VARS<\".fd", "/pool/a'b.qcow2", "/pool/a&b.iso", "br<0>");

        String xml = PlainXmlRenderer.INSTANCE.domainXml(domain);

        Document document = parse(xml);
        assertThat(document.getDocumentElement().getAttribute("type")).isEqualTo("kvm");
        assertThat(document.getElementsByTagName("loader").item(0).getTextContent()).isEqualTo("/fw/CODE&'.fd");
        assertThat(document.getElementsByTagName("nvram").item(0).getAttributes().getNamedItem("template")
                .getNodeValue()).isEqualTo("/fw/VARS<\".fd");
        assertThat(xml).contains("<source file='/pool/a&apos;b.qcow2'/>", "<source file='/pool/a&amp;b.iso'/>",
                "<source bridge='br&lt;0&gt;'/>");
    }

    @Test
    void theMetadataElementRoundTripsThroughTheReader() {
        String xml = PlainXmlRenderer.INSTANCE.domainXml(new DomainDefinition("proxy-1", METADATA, "qemu", 1, 512,
                "default", null, null, "/d", "/s", "br0"));
        // What libvirt stores under <metadata>, and hands back for the namespace.
        String element = xml.substring(xml.indexOf("<ep:instance"), xml.indexOf("</metadata>")).trim();

        InstanceMetadata read = InstanceMetadataReader.read(element);

        assertThat(read.uid()).isEqualTo(METADATA.uid());
        assertThat(read.createdAt()).as("whole seconds are recorded").isEqualTo(Instant.parse("2025-01-31T12:00:00Z"));
    }

    @Test
    void aBiosDomainWithQemusDefaultCpuHasNoLoaderAndNoCpuElement() {
        String xml = PlainXmlRenderer.INSTANCE.domainXml(new DomainDefinition("p", METADATA, "kvm", 1, 512, "default",
                null, null, "/d", "/s", "br0"));

        assertThat(xml).doesNotContain("<loader", "<nvram", "<cpu");
    }

    @Test
    void cpuModesAreWrittenAsLibvirtExpectsThem() throws Exception {
        for (String mode : new String[] {"host-model", "host-passthrough"}) {
            assertThat(PlainXmlRenderer.INSTANCE.domainXml(new DomainDefinition("p", METADATA, "kvm", 1, 512, mode,
                    null, null, "/d", "/s", "br0"))).contains("<cpu mode='" + mode + "'/>");
        }
        String named = PlainXmlRenderer.INSTANCE.domainXml(new DomainDefinition("p", METADATA, "kvm", 1, 512,
                "Skylake-Client<", null, null, "/d", "/s", "br0"));
        parse(named);
        assertThat(named).contains("<cpu mode='custom' match='exact'><model fallback='allow'>Skylake-Client&lt;</model>");
    }

    @Test
    void volumesAreWrittenWithCapacityFormatAndBackingStore() throws Exception {
        String overlay = PlainXmlRenderer.INSTANCE.volumeXml(VolumeDefinition.overlay("p.qcow2", 10L << 30,
                "/pool/debian-12.base.qcow2", "qcow2"));
        String raw = PlainXmlRenderer.INSTANCE.volumeXml(VolumeDefinition.rawFile("p&.seed.iso", 374784));

        parse(overlay);
        parse(raw);
        assertThat(overlay).contains("<capacity unit='bytes'>10737418240</capacity>", "<format type='qcow2'/>",
                "<backingStore>", "<path>/pool/debian-12.base.qcow2</path>");
        assertThat(raw).contains("<name>p&amp;.seed.iso</name>", "<format type='raw'/>").doesNotContain("backingStore");
    }

    @Test
    void charactersXmlCannotCarryAreRefused() {
        assertThatThrownBy(() -> PlainXmlRenderer.escape("a\u0000b")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+0");
        assertThat(PlainXmlRenderer.escape("tab\tok ü 😀")).isEqualTo("tab\tok ü 😀");
    }

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml)));
    }
}
