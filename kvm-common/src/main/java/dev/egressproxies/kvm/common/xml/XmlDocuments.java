package dev.egressproxies.kvm.common.xml;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerException;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * The JDK's XML APIs, configured once: documents are DOM trees the JDK serializes, so values are
 * escaped by the serializer rather than by hand.
 */
final class XmlDocuments {
    /**
     * A builder per thread, reused: making one (factory lookup, parser configuration) cost a list
     * of 500 domains more CPU than parsing their metadata did.
     */
    private static final ThreadLocal<DocumentBuilder> BUILDERS = ThreadLocal.withInitial(XmlDocuments::newBuilder);
    /** Errors become exceptions; the default handler would also print them to stderr. */
    private static final DefaultHandler THROWING = new DefaultHandler() {
        @Override
        public void error(SAXParseException exception) throws SAXException {
            throw exception;
        }
    };

    private XmlDocuments() {
    }

    /** A new document whose root element is {@code name}. */
    static Element newRoot(String name) {
        Document document = BUILDERS.get().newDocument();
        return (Element) document.appendChild(document.createElement(name));
    }

    /** Appends element {@code name} with the given attribute name/value pairs. */
    static Element append(Element parent, String name, String... attributes) {
        Element child = (Element) parent.appendChild(parent.getOwnerDocument().createElement(name));
        for (int index = 0; index < attributes.length; index += 2) {
            String attribute = attributes[index];
            child.setAttribute(attribute, requireXmlText(attributes[index + 1], name + "/@" + attribute));
        }
        return child;
    }

    /** Appends element {@code name} holding {@code text}, with the given attribute name/value pairs. */
    static Element appendText(Element parent, String name, String text, String... attributes) {
        Element child = append(parent, name, attributes);
        child.setTextContent(requireXmlText(text, name));
        return child;
    }

    /** The document as indented text without an XML declaration (libvirt wants none). */
    static String serialize(Element root) {
        try {
            TransformerFactory factory = TransformerFactory.newInstance();
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_STYLESHEET, "");
            Transformer transformer = factory.newTransformer();
            transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
            transformer.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
            transformer.setOutputProperty(OutputKeys.INDENT, "yes");
            transformer.setOutputProperty("{http://xml.apache.org/xslt}indent-amount", "2");
            StringWriter text = new StringWriter();
            transformer.transform(new DOMSource(root.getOwnerDocument()), new StreamResult(text));
            return text.toString();
        } catch (TransformerException e) {
            throw new IllegalStateException("the JDK could not serialize an XML document it built", e);
        }
    }

    /** Parses {@code xml} with namespaces; IllegalArgumentException when it is not well-formed. */
    static Document parse(String xml) {
        try {
            return BUILDERS.get().parse(new InputSource(new StringReader(xml)));
        } catch (SAXException e) {
            throw new IllegalArgumentException("not well-formed XML: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalStateException("reading XML from a string failed", e);
        }
    }

    /**
     * Returns {@code value} when XML 1.0 can carry all of it (no escaping carries a control
     * character or lone surrogate).
     */
    static String requireXmlText(String value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        for (int index = 0; index < value.length(); ) {
            int codePoint = value.codePointAt(index);
            boolean allowed = codePoint == 0x9 || codePoint == 0xA || codePoint == 0xD
                    || (codePoint >= 0x20 && codePoint <= 0xD7FF)
                    || (codePoint >= 0xE000 && codePoint <= 0xFFFD)
                    || (codePoint >= 0x10000 && codePoint <= 0x10FFFF);
            if (!allowed) {
                throw new IllegalArgumentException(what + " contains the character U+"
                        + String.format("%04X", codePoint) + " at index " + index
                        + ", which XML cannot carry; remove it from the configuration or request");
            }
            index += Character.charCount(codePoint);
        }
        return value;
    }

    /** The constant of {@code type} whose lowercase name is {@code text} in any case; else IllegalArgumentException. */
    static <E extends Enum<E>> E parseXmlName(Class<E> type, String text, String what) {
        List<String> names = Stream.of(type.getEnumConstants())
                .map(constant -> constant.name().toLowerCase(Locale.ROOT)).toList();
        int index = names.indexOf(text.strip().toLowerCase(Locale.ROOT));
        if (index < 0) {
            throw new IllegalArgumentException(
                    what + " '" + text + "' is not one of '" + String.join("' or '", names) + "'");
        }
        return type.getEnumConstants()[index];
    }

    /** The element children of {@code parent} whose local name is {@code localName}, in document order. */
    static List<Element> children(Element parent, String localName) {
        List<Element> found = new ArrayList<>();
        for (Node child = parent.getFirstChild(); child != null; child = child.getNextSibling()) {
            if (child instanceof Element element && localName.equals(element.getLocalName())) {
                found.add(element);
            }
        }
        return found;
    }

    private static DocumentBuilder newBuilder() {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newDefaultInstance();
            factory.setNamespaceAware(true);
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            factory.setXIncludeAware(false);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(THROWING);
            return builder;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser lacks a standard feature", e);
        }
    }
}
