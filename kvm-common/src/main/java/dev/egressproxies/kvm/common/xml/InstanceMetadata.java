package dev.egressproxies.kvm.common.xml;

import static dev.egressproxies.kvm.common.xml.XmlDocuments.requireXmlText;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import javax.xml.XMLConstants;
import org.w3c.dom.Element;

/**
 * What the platform records in a domain it creates, as {@code <ep:instance>} in its own namespace;
 * its presence marks a domain as the platform's, its entry as one provider entry's and no other's.
 */
public record InstanceMetadata(String uid, Instant createdAt, Optional<String> entry, String machineType,
                               String image, String userDataSha256) {
    /** The platform's XML namespace for domain metadata; versioned, never reused for another shape. */
    public static final String NAMESPACE = "https://egressproxies.dev/xmlns/instance/1";

    /** Far more than the element needs; a hostile or broken domain cannot make us parse more. */
    static final int MAXIMUM_CHARACTERS = 16 * 1024;

    private static final String PREFIX = "ep";

    /** Requires every field and a non-blank entry when there is one; keeps whole seconds, as the XML does. */
    public InstanceMetadata {
        Objects.requireNonNull(uid, "uid");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(entry, "entry");
        Objects.requireNonNull(machineType, "machineType");
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(userDataSha256, "userDataSha256");
        if (uid.isBlank()) {
            throw new IllegalArgumentException("the instance UID is blank");
        }
        if (entry.isPresent() && entry.get().isBlank()) {
            throw new IllegalArgumentException("the provider entry is blank");
        }
        createdAt = createdAt.truncatedTo(ChronoUnit.SECONDS);
    }

    /** Metadata without a recorded placement, as older domains carry. */
    public InstanceMetadata(String uid, Instant createdAt, Optional<String> entry) {
        this(uid, createdAt, entry, "", "", "");
    }

    /** The metadata of a domain that {@code entry} created, without a recorded placement. */
    public InstanceMetadata(String uid, Instant createdAt, String entry) {
        this(uid, createdAt, Optional.of(entry));
    }

    /** Whether the domain was created through the provider entry of that name. */
    public boolean createdThrough(String entryName) {
        return entry.filter(entryName::equals).isPresent();
    }

    /**
     * Reads the element back from what libvirt returns (with or without the namespace), tolerant of
     * formatting; IllegalArgumentException when it is too large, not well-formed, or lacks a field.
     */
    public static InstanceMetadata parse(String xml) {
        if (xml.length() > MAXIMUM_CHARACTERS) {
            throw malformed("it is " + xml.length() + " characters long, more than the " + MAXIMUM_CHARACTERS
                    + " allowed");
        }
        Element root;
        try {
            root = XmlDocuments.parse(xml).getDocumentElement();
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
        if (!isOurs(root, "instance")) {
            throw malformed("its root element is <" + root.getTagName() + ">, not <instance>");
        }
        String uid = field(root, "uid").orElseThrow(() -> malformed("it has no <uid>"));
        if (uid.isEmpty()) {
            throw malformed("its <uid> is empty");
        }
        Optional<String> entry = field(root, "entry");
        if (entry.isPresent() && entry.get().isEmpty()) {
            throw malformed("its <entry> is empty");
        }
        String created = field(root, "created").orElseThrow(() -> malformed("it has no <created>"));
        return new InstanceMetadata(uid, parseTime(created), entry, field(root, "machineType").orElse(""),
                field(root, "image").orElse(""), field(root, "userDataSha256").orElse(""));
    }

    /** Appends the {@code ep:instance} element; unknown values are left out, as in older domains. */
    void appendTo(Element parent) {
        Element instance = parent.getOwnerDocument().createElementNS(NAMESPACE, PREFIX + ":instance");
        instance.setAttributeNS(XMLConstants.XMLNS_ATTRIBUTE_NS_URI, "xmlns:" + PREFIX, NAMESPACE);
        parent.appendChild(instance);
        appendField(instance, "uid", requireXmlText(uid, "the instance UID"));
        appendField(instance, "created", DateTimeFormatter.ISO_INSTANT.format(createdAt));
        // Absent only in domains defined before entries were recorded; those are read, never written.
        String entryName = entry.orElseThrow(() -> new IllegalArgumentException(
                "the metadata of a new domain must name its provider entry"));
        appendField(instance, "entry", requireXmlText(entryName, "the provider entry name"));
        appendField(instance, "machineType", requireXmlText(machineType, "the machine type"));
        appendField(instance, "image", requireXmlText(image, "the image"));
        appendField(instance, "userDataSha256", requireXmlText(userDataSha256, "the user-data digest"));
    }

    private static void appendField(Element instance, String name, String text) {
        if (!text.isEmpty()) {
            Element field = instance.getOwnerDocument().createElementNS(NAMESPACE, PREFIX + ":" + name);
            field.setTextContent(text);
            instance.appendChild(field);
        }
    }

    /** libvirt returns the element without its namespace, so names match in ours or in none. */
    private static boolean isOurs(Element element, String localName) {
        String namespace = element.getNamespaceURI();
        return localName.equals(element.getLocalName()) && (namespace == null || namespace.equals(NAMESPACE));
    }

    private static Optional<String> field(Element instance, String name) {
        return XmlDocuments.children(instance, name).stream().filter(element -> isOurs(element, name)).findFirst()
                .map(element -> element.getTextContent().strip());
    }

    /** An RFC 3339 timestamp, which may use a lowercase {@code t} and {@code z}. */
    private static Instant parseTime(String text) {
        try {
            return OffsetDateTime.parse(text.toUpperCase(Locale.ROOT), DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                    .toInstant();
        } catch (DateTimeParseException e) {
            throw malformed("its <created> '" + text + "' is not an RFC 3339 timestamp");
        }
    }

    private static IllegalArgumentException malformed(String detail) {
        return new IllegalArgumentException("the egress-proxies metadata of this domain is malformed: " + detail
                + "; the element was edited by hand or written by something else; fix it, or remove it with"
                + " 'virsh metadata DOMAIN " + NAMESPACE + " --remove' if the platform must not manage the domain");
    }
}
