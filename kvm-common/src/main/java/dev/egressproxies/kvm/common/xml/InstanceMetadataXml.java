package dev.egressproxies.kvm.common.xml;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import javax.xml.XMLConstants;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** The XML form of {@link InstanceMetadata}: writing it into a domain, reading it back from libvirt. */
final class InstanceMetadataXml {
    /** Far more than the element ever needs; a bound so a hostile or broken domain cannot exhaust the heap. */
    static final int MAXIMUM_CHARACTERS = 16 * 1024;

    private static final String INSTANCE = "instance";
    private static final String UID = "uid";
    private static final String CREATED = "created";
    private static final String ENTRY = "entry";
    private static final String MACHINE_TYPE = "machineType";
    private static final String IMAGE = "image";
    private static final String USER_DATA_SHA256 = "userDataSha256";

    private InstanceMetadataXml() {
    }

    /** Appends the {@code ep:instance} element for {@code metadata} to {@code parent}. */
    static void append(Element parent, InstanceMetadata metadata) {
        Document document = parent.getOwnerDocument();
        Element instance = document.createElementNS(InstanceMetadata.NAMESPACE, qualified(INSTANCE));
        instance.setAttributeNS(XMLConstants.XMLNS_ATTRIBUTE_NS_URI, "xmlns:" + InstanceMetadata.PREFIX,
                InstanceMetadata.NAMESPACE);
        parent.appendChild(instance);
        appendField(instance, UID, XmlText.require(metadata.uid(), "the instance UID"));
        appendField(instance, CREATED, DateTimeFormatter.ISO_INSTANT.format(metadata.createdAt()));
        // Only ever absent in domains defined before entries were recorded; those are read, never written.
        String entry = metadata.entry().orElseThrow(() -> new IllegalArgumentException(
                "the metadata of a new domain must name its provider entry"));
        appendField(instance, ENTRY, XmlText.require(entry, "the provider entry name"));
        // Unknown values are left out, as in domains defined before they were recorded.
        appendUnlessEmpty(instance, MACHINE_TYPE, XmlText.require(metadata.machineType(), "the machine type"));
        appendUnlessEmpty(instance, IMAGE, XmlText.require(metadata.image(), "the image"));
        appendUnlessEmpty(instance, USER_DATA_SHA256, XmlText.require(metadata.userDataSha256(),
                "the user-data digest"));
    }

    /**
     * Reads the element back. libvirt returns it without its namespace, so elements are matched by
     * local name in the platform's namespace or in none.
     */
    static InstanceMetadata parse(String xml) {
        if (xml.length() > MAXIMUM_CHARACTERS) {
            throw malformed("it is " + xml.length() + " characters long, more than the " + MAXIMUM_CHARACTERS
                    + " allowed");
        }
        Document document;
        try {
            document = XmlDocuments.parse(xml);
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
        Element root = document.getDocumentElement();
        if (!isOurs(root, INSTANCE)) {
            throw malformed("its root element is <" + root.getTagName() + ">, not <" + INSTANCE + ">");
        }
        String uid = fieldText(root, UID);
        if (uid.isEmpty()) {
            throw malformed("its <" + UID + "> is empty");
        }
        Optional<String> entry = optionalFieldText(root, ENTRY);
        if (entry.isPresent() && entry.get().isEmpty()) {
            throw malformed("its <" + ENTRY + "> is empty");
        }
        return new InstanceMetadata(uid, parseTime(fieldText(root, CREATED)), entry,
                optionalFieldText(root, MACHINE_TYPE).orElse(""), optionalFieldText(root, IMAGE).orElse(""),
                optionalFieldText(root, USER_DATA_SHA256).orElse(""));
    }

    private static void appendUnlessEmpty(Element instance, String name, String text) {
        if (!text.isEmpty()) {
            appendField(instance, name, text);
        }
    }

    private static void appendField(Element instance, String name, String text) {
        Element field = instance.getOwnerDocument().createElementNS(InstanceMetadata.NAMESPACE, qualified(name));
        field.setTextContent(text);
        instance.appendChild(field);
    }

    private static String qualified(String localName) {
        return InstanceMetadata.PREFIX + ":" + localName;
    }

    private static boolean isOurs(Element element, String localName) {
        String namespace = element.getNamespaceURI();
        return localName.equals(element.getLocalName())
                && (namespace == null || namespace.equals(InstanceMetadata.NAMESPACE));
    }

    /** The trimmed text of the first child element {@code name}. */
    private static String fieldText(Element instance, String name) {
        return optionalFieldText(instance, name).orElseThrow(() -> malformed("it has no <" + name + ">"));
    }

    /** The trimmed text of the first child element {@code name}, or empty when there is none. */
    private static Optional<String> optionalFieldText(Element instance, String name) {
        for (Node child = instance.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element element && isOurs(element, name)) {
                return Optional.of(element.getTextContent().strip());
            }
        }
        return Optional.empty();
    }

    /** An RFC 3339 timestamp; the standard allows a lowercase {@code t} and {@code z}. */
    private static Instant parseTime(String text) {
        try {
            return OffsetDateTime.parse(text.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            throw malformed("its <" + CREATED + "> '" + text + "' is not an RFC 3339 timestamp");
        }
    }

    private static IllegalArgumentException malformed(String detail) {
        return new IllegalArgumentException("the egress-proxies metadata of this domain is malformed: " + detail
                + "; the element was edited by hand or written by something else; fix it, or remove it with"
                + " 'virsh metadata DOMAIN " + InstanceMetadata.NAMESPACE + " --remove' if the platform must not"
                + " manage the domain");
    }
}
