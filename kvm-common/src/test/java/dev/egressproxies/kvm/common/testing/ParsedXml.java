package dev.egressproxies.kvm.common.testing;

import dev.egressproxies.kvm.common.xml.InstanceMetadata;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.namespace.NamespaceContext;
import javax.xml.namespace.QName;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpressionException;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * XML the code under test wrote (domain or volume XML handed to the fake host, or what the builders
 * return), parsed back with the JDK's own parser and queried with XPath, so assertions check what
 * libvirt would read rather than how the writer happened to format it; {@code ep:} names the
 * platform's metadata namespace.
 */
public final class ParsedXml {
    private final Document document;

    private ParsedXml(Document document) {
        this.document = document;
    }

    /** Parses {@code xml}; XML that does not parse fails the test. */
    public static ParsedXml of(String xml) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setNamespaceAware(true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return new ParsedXml(factory.newDocumentBuilder().parse(new InputSource(new StringReader(xml))));
        } catch (Exception malformed) {
            throw new AssertionError("the code under test wrote XML that does not parse:\n" + xml, malformed);
        }
    }

    /** The string value of {@code xpath}; {@code ""} when it selects nothing. */
    public String text(String xpath) {
        return (String) evaluate(xpath, XPathConstants.STRING);
    }

    /** How many nodes {@code xpath} selects. */
    public int count(String xpath) {
        return ((NodeList) evaluate(xpath, XPathConstants.NODESET)).getLength();
    }

    /** The string values of the nodes {@code xpath} selects. */
    public List<String> texts(String xpath) {
        NodeList nodes = (NodeList) evaluate(xpath, XPathConstants.NODESET);
        List<String> texts = new ArrayList<>();
        for (int index = 0; index < nodes.getLength(); index++) {
            texts.add(nodes.item(index).getTextContent());
        }
        return texts;
    }

    private Object evaluate(String xpath, QName type) {
        try {
            var path = XPathFactory.newInstance().newXPath();
            path.setNamespaceContext(new PlatformNamespace());
            return path.evaluate(xpath, document, type);
        } catch (XPathExpressionException invalid) {
            throw new AssertionError("bad XPath in the test: " + xpath, invalid);
        }
    }

    /** Resolves the prefix {@code ep} to the platform's metadata namespace. */
    private static final class PlatformNamespace implements NamespaceContext {
        @Override
        public String getNamespaceURI(String prefix) {
            return "ep".equals(prefix) ? InstanceMetadata.NAMESPACE : XMLConstants.NULL_NS_URI;
        }

        @Override
        public String getPrefix(String namespaceUri) {
            return null;
        }

        @Override
        public Iterator<String> getPrefixes(String namespaceUri) {
            return null;
        }
    }
}
