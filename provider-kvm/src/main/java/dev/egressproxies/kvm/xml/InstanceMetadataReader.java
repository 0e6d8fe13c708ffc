package dev.egressproxies.kvm.xml;

import java.io.IOException;
import java.io.StringReader;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * The reader of {@link InstanceMetadata} elements as libvirt hands them back. Its input comes from
 * a hypervisor that anyone with access may have edited, so it is bounded in size and parsed
 * without DTDs or external entities.
 */
public final class InstanceMetadataReader {
    /** Far above what the platform writes (about 200 characters); a bound for hand-edited domains. */
    public static final int MAXIMUM_CHARACTERS = 16 * 1024;
    private static final Pattern UID = Pattern.compile("[\\x21-\\x7e]{1,128}");
    /** Fails on errors without printing them, as the default handler does: the exception carries them. */
    private static final ErrorHandler SILENT = new ErrorHandler() {
        @Override
        public void warning(SAXParseException exception) {
        }

        @Override
        public void error(SAXParseException exception) throws SAXException {
            throw exception;
        }

        @Override
        public void fatalError(SAXParseException exception) throws SAXException {
            throw exception;
        }
    };
    /** Configured once; a factory is not safe for concurrent use, so builders are made under its lock. */
    private static final DocumentBuilderFactory FACTORY = factory();
    /**
     * One builder per thread, reset after each use: making a builder costs far more than parsing
     * the element, and listManaged parses one per domain.
     */
    private static final ThreadLocal<DocumentBuilder> BUILDERS =
            ThreadLocal.withInitial(InstanceMetadataReader::newBuilder);

    private InstanceMetadataReader() {
    }

    /**
     * Parses a metadata element.
     *
     * @throws IllegalArgumentException when it is too long, not well-formed, not the platform's
     *                                  element, or lacks a valid UID or creation time; the message
     *                                  says which
     */
    public static InstanceMetadata read(String xml) {
        if (xml.length() > MAXIMUM_CHARACTERS) {
            throw new IllegalArgumentException("the metadata element is " + xml.length() + " characters long, over the"
                    + " limit of " + MAXIMUM_CHARACTERS);
        }
        Element root = parse(xml);
        if (!InstanceMetadata.ELEMENT.equals(root.getLocalName())
                || !InstanceMetadata.NAMESPACE.equals(root.getNamespaceURI())) {
            throw new IllegalArgumentException("the metadata element is <" + root.getNodeName() + "> in namespace '"
                    + root.getNamespaceURI() + "', not <" + InstanceMetadata.ELEMENT + "> in "
                    + InstanceMetadata.NAMESPACE);
        }
        String uid = childText(root, InstanceMetadata.UID_ELEMENT);
        if (!UID.matcher(uid).matches()) {
            throw new IllegalArgumentException("the metadata's " + InstanceMetadata.UID_ELEMENT
                    + " is not 1 to 128 printable ASCII characters");
        }
        String created = childText(root, InstanceMetadata.CREATED_ELEMENT);
        try {
            return new InstanceMetadata(uid, Instant.parse(created));
        } catch (DateTimeParseException invalid) {
            throw new IllegalArgumentException("the metadata's " + InstanceMetadata.CREATED_ELEMENT + " '" + created
                    + "' is not an ISO-8601 instant", invalid);
        }
    }

    private static Element parse(String xml) {
        DocumentBuilder builder = BUILDERS.get();
        try {
            return builder.parse(new InputSource(new StringReader(xml))).getDocumentElement();
        } catch (SAXException | IOException invalid) {
            throw new IllegalArgumentException("the metadata element is not well-formed XML: " + invalid.getMessage(),
                    invalid);
        } finally {
            builder.reset();
            builder.setErrorHandler(SILENT);
        }
    }

    private static DocumentBuilder newBuilder() {
        synchronized (FACTORY) {
            try {
                DocumentBuilder builder = FACTORY.newDocumentBuilder();
                builder.setErrorHandler(SILENT);
                return builder;
            } catch (ParserConfigurationException impossible) {
                throw new IllegalStateException("the JDK's XML parser rejected its own configuration", impossible);
            }
        }
    }

    private static DocumentBuilderFactory factory() {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        factory.setExpandEntityReferences(false);
        factory.setXIncludeAware(false);
        try {
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        } catch (ParserConfigurationException unsupported) {
            throw new IllegalStateException("the JDK's XML parser refused a security feature", unsupported);
        }
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
        return factory;
    }

    /** The trimmed text of the one child with that local name; children's prefixes do not matter. */
    private static String childText(Element root, String localName) {
        String found = null;
        for (Node child = root.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child.getNodeType() == Node.ELEMENT_NODE && localName.equals(child.getLocalName())) {
                if (found != null) {
                    throw new IllegalArgumentException("the metadata has more than one " + localName + " element");
                }
                found = child.getTextContent().trim();
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("the metadata has no " + localName + " element");
        }
        return found;
    }
}
