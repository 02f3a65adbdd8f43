//! The package's fixed parts: content types, relationships, styles (sizes from the options),
//! numbering, settings, and the header and footer with RAGFlow's decorations.

use super::body::{ListInstance, Media, TEXT_WIDTH};
use super::escape;
use crate::options::DocOptions;
use std::fmt::Write;

const XML_HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
const W_NS: &str = "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\" \
xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\"";
const DRAWING_NS: &str =
    "xmlns:wp=\"http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing\" \
xmlns:a=\"http://schemas.openxmlformats.org/drawingml/2006/main\" \
xmlns:pic=\"http://schemas.openxmlformats.org/drawingml/2006/picture\"";
const VML_NS: &str =
    "xmlns:v=\"urn:schemas-microsoft-com:vml\" xmlns:o=\"urn:schemas-microsoft-com:office:office\"";
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

pub fn content_types(media: &[Media]) -> String {
    let mut xml = format!(
        "{XML_HEAD}<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
    );
    let mut seen = Vec::new();
    for m in media {
        if !seen.contains(&m.extension) {
            seen.push(m.extension);
            let _ = write!(
                xml,
                "<Default Extension=\"{}\" ContentType=\"{}\"/>",
                m.extension, m.content_type
            );
        }
    }
    let wml = "application/vnd.openxmlformats-officedocument.wordprocessingml";
    for (part, kind) in [
        ("/word/document.xml", format!("{wml}.document.main+xml")),
        ("/word/styles.xml", format!("{wml}.styles+xml")),
        ("/word/numbering.xml", format!("{wml}.numbering+xml")),
        ("/word/settings.xml", format!("{wml}.settings+xml")),
        ("/word/header1.xml", format!("{wml}.header+xml")),
        ("/word/footer1.xml", format!("{wml}.footer+xml")),
        (
            "/docProps/core.xml",
            "application/vnd.openxmlformats-package.core-properties+xml".to_string(),
        ),
        (
            "/docProps/app.xml",
            "application/vnd.openxmlformats-officedocument.extended-properties+xml".to_string(),
        ),
    ] {
        let _ = write!(
            xml,
            "<Override PartName=\"{part}\" ContentType=\"{kind}\"/>"
        );
    }
    xml.push_str("</Types>");
    xml
}

pub fn package_rels() -> String {
    format!(
        "{XML_HEAD}<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
<Relationship Id=\"rId1\" Type=\"{REL}/officeDocument\" Target=\"word/document.xml\"/>\
<Relationship Id=\"rId2\" Type=\"http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties\" Target=\"docProps/core.xml\"/>\
<Relationship Id=\"rId3\" Type=\"{REL}/extended-properties\" Target=\"docProps/app.xml\"/>\
</Relationships>"
    )
}

pub fn core() -> String {
    format!(
        "{XML_HEAD}<cp:coreProperties xmlns:cp=\"http://schemas.openxmlformats.org/package/2006/metadata/core-properties\" \
xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:dcterms=\"http://purl.org/dc/terms/\" \
xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><dc:title></dc:title><dc:creator>canvasc</dc:creator></cp:coreProperties>"
    )
}

pub fn app() -> String {
    format!(
        "{XML_HEAD}<Properties xmlns=\"http://schemas.openxmlformats.org/officeDocument/2006/extended-properties\">\
<Application>canvasc</Application></Properties>"
    )
}

pub fn document(body: &str) -> String {
    format!(
        "{XML_HEAD}<w:document {W_NS} {DRAWING_NS} {VML_NS}><w:body>{body}\
<w:sectPr><w:headerReference w:type=\"default\" r:id=\"rIdHeader1\"/>\
<w:footerReference w:type=\"default\" r:id=\"rIdFooter1\"/>\
<w:pgSz w:w=\"12240\" w:h=\"15840\"/>\
<w:pgMar w:top=\"1440\" w:right=\"1440\" w:bottom=\"1440\" w:left=\"1440\" w:header=\"720\" w:footer=\"720\" w:gutter=\"0\"/>\
</w:sectPr></w:body></w:document>"
    )
}

pub fn document_rels(links: &[(String, String)], media: &[Media]) -> String {
    let mut xml = format!(
        "{XML_HEAD}<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
<Relationship Id=\"rIdStyles\" Type=\"{REL}/styles\" Target=\"styles.xml\"/>\
<Relationship Id=\"rIdNumbering\" Type=\"{REL}/numbering\" Target=\"numbering.xml\"/>\
<Relationship Id=\"rIdSettings\" Type=\"{REL}/settings\" Target=\"settings.xml\"/>\
<Relationship Id=\"rIdHeader1\" Type=\"{REL}/header\" Target=\"header1.xml\"/>\
<Relationship Id=\"rIdFooter1\" Type=\"{REL}/footer\" Target=\"footer1.xml\"/>"
    );
    for (id, url) in links {
        let _ = write!(
            xml,
            "<Relationship Id=\"{id}\" Type=\"{REL}/hyperlink\" Target=\"{}\" TargetMode=\"External\"/>",
            escape(url)
        );
    }
    for m in media {
        let _ = write!(
            xml,
            "<Relationship Id=\"{}\" Type=\"{REL}/image\" Target=\"media/{}\"/>",
            m.rel_id, m.file_name
        );
    }
    xml.push_str("</Relationships>");
    xml
}

fn paragraph_style(xml: &mut String, id: &str, name: &str, ppr: &str, rpr: &str) {
    let _ = write!(
        xml,
        "<w:style w:type=\"paragraph\" w:customStyle=\"1\" w:styleId=\"{id}\"><w:name w:val=\"{name}\"/>\
<w:basedOn w:val=\"Normal\"/><w:next w:val=\"BodyText\"/><w:qFormat/><w:pPr>{ppr}</w:pPr><w:rPr>{rpr}</w:rPr></w:style>"
    );
}

/// Styles: Normal at the base size, headings at RAGFlow's sizes (half-points in `w:sz`).
pub fn styles(options: &DocOptions) -> String {
    let normal = options.font_size * 2;
    let mut xml = format!(
        "{XML_HEAD}<w:styles {W_NS}><w:docDefaults><w:rPrDefault><w:rPr>\
<w:rFonts w:ascii=\"Calibri\" w:hAnsi=\"Calibri\" w:eastAsia=\"Noto Sans CJK SC\" w:cs=\"Arial\"/>\
<w:sz w:val=\"{normal}\"/><w:szCs w:val=\"{normal}\"/><w:lang w:val=\"en-US\"/></w:rPr></w:rPrDefault>\
<w:pPrDefault><w:pPr><w:spacing w:after=\"120\"/></w:pPr></w:pPrDefault></w:docDefaults>\
<w:style w:type=\"paragraph\" w:default=\"1\" w:styleId=\"Normal\"><w:name w:val=\"Normal\"/><w:qFormat/>\
<w:rPr><w:sz w:val=\"{normal}\"/><w:szCs w:val=\"{normal}\"/></w:rPr></w:style>\
<w:style w:type=\"character\" w:default=\"1\" w:styleId=\"DefaultParagraphFont\"><w:name w:val=\"Default Paragraph Font\"/><w:uiPriority w:val=\"1\"/><w:semiHidden/></w:style>"
    );
    for level in 1..=6u8 {
        let size = options.heading_size(level) * 2;
        let _ = write!(
            xml,
            "<w:style w:type=\"paragraph\" w:styleId=\"Heading{level}\"><w:name w:val=\"heading {level}\"/>\
<w:basedOn w:val=\"Normal\"/><w:next w:val=\"BodyText\"/><w:uiPriority w:val=\"9\"/><w:qFormat/>\
<w:pPr><w:keepNext/><w:keepLines/><w:spacing w:before=\"240\" w:after=\"120\"/><w:outlineLvl w:val=\"{}\"/></w:pPr>\
<w:rPr><w:b/><w:bCs/><w:sz w:val=\"{size}\"/><w:szCs w:val=\"{size}\"/></w:rPr></w:style>",
            level - 1
        );
    }
    paragraph_style(
        &mut xml,
        "BodyText",
        "Body Text",
        "<w:spacing w:before=\"120\" w:after=\"120\"/>",
        "",
    );
    paragraph_style(
        &mut xml,
        "Compact",
        "Compact",
        "<w:spacing w:before=\"36\" w:after=\"36\"/>",
        "",
    );
    paragraph_style(
        &mut xml,
        "ListParagraph",
        "List Paragraph",
        "<w:spacing w:after=\"60\"/>",
        "",
    );
    paragraph_style(
        &mut xml,
        "BlockText",
        "Block Text",
        "<w:spacing w:before=\"100\" w:after=\"100\"/><w:ind w:left=\"480\" w:right=\"480\"/>",
        "",
    );
    paragraph_style(
        &mut xml,
        "SourceCode",
        "Source Code",
        "<w:wordWrap w:val=\"off\"/><w:spacing w:before=\"60\" w:after=\"60\"/>",
        "<w:rFonts w:ascii=\"Consolas\" w:hAnsi=\"Consolas\"/>",
    );
    paragraph_style(&mut xml, "Header", "header", &format!("<w:tabs><w:tab w:val=\"center\" w:pos=\"{}\"/><w:tab w:val=\"right\" w:pos=\"{TEXT_WIDTH}\"/></w:tabs><w:spacing w:after=\"0\"/>", TEXT_WIDTH / 2), "");
    paragraph_style(&mut xml, "Footer", "footer", &format!("<w:tabs><w:tab w:val=\"center\" w:pos=\"{}\"/><w:tab w:val=\"right\" w:pos=\"{TEXT_WIDTH}\"/></w:tabs><w:spacing w:after=\"0\"/>", TEXT_WIDTH / 2), "");
    xml.push_str(
        "<w:style w:type=\"character\" w:customStyle=\"1\" w:styleId=\"VerbatimChar\"><w:name w:val=\"Verbatim Char\"/>\
<w:rPr><w:rFonts w:ascii=\"Consolas\" w:hAnsi=\"Consolas\"/></w:rPr></w:style>\
<w:style w:type=\"character\" w:styleId=\"Hyperlink\"><w:name w:val=\"Hyperlink\"/>\
<w:rPr><w:color w:val=\"0563C1\"/><w:u w:val=\"single\"/></w:rPr></w:style>\
<w:style w:type=\"table\" w:default=\"1\" w:styleId=\"Table\"><w:name w:val=\"Table\"/>\
<w:tblPr><w:tblCellMar><w:left w:w=\"108\" w:type=\"dxa\"/><w:right w:w=\"108\" w:type=\"dxa\"/></w:tblCellMar></w:tblPr></w:style>\
</w:styles>",
    );
    xml
}

/// Bullet and decimal definitions for nine levels, and one instance per list (so each ordered
/// list counts from its own start).
pub fn numbering(lists: &[ListInstance]) -> String {
    let mut xml = format!("{XML_HEAD}<w:numbering {W_NS}>");
    for (abstract_id, ordered) in [(0, false), (1, true)] {
        let _ = write!(xml, "<w:abstractNum w:abstractNumId=\"{abstract_id}\"><w:multiLevelType w:val=\"multilevel\"/>");
        for level in 0..9u32 {
            let (format, text) = if ordered {
                ("decimal", format!("%{}.", level + 1))
            } else {
                ("bullet", ["•", "◦", "▪"][level as usize % 3].to_string())
            };
            let indent = 720 * (level + 1);
            let _ = write!(
                xml,
                "<w:lvl w:ilvl=\"{level}\"><w:start w:val=\"1\"/><w:numFmt w:val=\"{format}\"/>\
<w:lvlText w:val=\"{text}\"/><w:lvlJc w:val=\"left\"/><w:pPr><w:ind w:left=\"{indent}\" w:hanging=\"360\"/></w:pPr></w:lvl>"
            );
        }
        xml.push_str("</w:abstractNum>");
    }
    for list in lists {
        let abstract_id = u32::from(list.ordered);
        let _ = write!(
            xml,
            "<w:num w:numId=\"{}\"><w:abstractNumId w:val=\"{abstract_id}\"/>",
            list.num_id
        );
        if list.ordered {
            for level in 0..9 {
                let start = if level == 0 { list.start } else { 1 };
                let _ = write!(
                    xml,
                    "<w:lvlOverride w:ilvl=\"{level}\"><w:startOverride w:val=\"{start}\"/></w:lvlOverride>"
                );
            }
        }
        xml.push_str("</w:num>");
    }
    xml.push_str("</w:numbering>");
    xml
}

pub fn settings() -> String {
    format!(
        "{XML_HEAD}<w:settings {W_NS}><w:defaultTabStop w:val=\"720\"/>\
<w:characterSpacingControl w:val=\"doNotCompress\"/><w:compat>\
<w:compatSetting w:name=\"compatibilityMode\" w:uri=\"http://schemas.microsoft.com/office/word\" w:val=\"15\"/>\
</w:compat></w:settings>"
    )
}

fn text_run(text: &str) -> String {
    format!(
        "<w:r><w:t xml:space=\"preserve\">{}</w:t></w:r>",
        escape(text)
    )
}

/// The header: the header text, then the watermark (a VML text path rotated 315°, i.e. rising
/// at 45°, light grey at 18 % opacity, as RAGFlow writes it).
pub fn header(options: &DocOptions) -> String {
    let mut xml = format!("{XML_HEAD}<w:hdr {W_NS} {VML_NS}>");
    if !options.header_text.is_empty() {
        let _ = write!(
            xml,
            "<w:p><w:pPr><w:pStyle w:val=\"Header\"/></w:pPr>{}</w:p>",
            text_run(&options.header_text)
        );
    }
    if !options.watermark_text.is_empty() {
        let _ = write!(
            xml,
            "<w:p><w:pPr><w:pStyle w:val=\"Header\"/><w:jc w:val=\"center\"/></w:pPr><w:r><w:pict>\
<v:shapetype id=\"_x0000_t136\" coordsize=\"21600,21600\" o:spt=\"136\" adj=\"10800\" path=\"m@7,l@8,m@5,21600l@6,21600e\">\
<v:path textpathok=\"t\" o:connecttype=\"custom\"/><v:textpath on=\"t\" fitshape=\"t\"/>\
<o:lock v:ext=\"edit\" text=\"t\" shapetype=\"t\"/></v:shapetype>\
<v:shape id=\"PowerPlusWaterMarkObject\" o:spid=\"_x0000_s2049\" type=\"#_x0000_t136\" \
style=\"position:absolute;margin-left:0;margin-top:0;width:468pt;height:117pt;rotation:315;z-index:-251654144;\
mso-wrap-edited:f;mso-position-horizontal:center;mso-position-horizontal-relative:margin;\
mso-position-vertical:center;mso-position-vertical-relative:margin\" fillcolor=\"#d9d9d9\" stroked=\"f\">\
<v:fill opacity=\"0.18\"/><v:textpath on=\"t\" style=\"font-family:&quot;Calibri&quot;;font-size:1pt\" string=\"{}\"/>\
</v:shape></w:pict></w:r></w:p>",
            escape(&options.watermark_text)
        );
    }
    if options.header_text.is_empty() && options.watermark_text.is_empty() {
        xml.push_str("<w:p><w:pPr><w:pStyle w:val=\"Header\"/></w:pPr></w:p>");
    }
    xml.push_str("</w:hdr>");
    xml
}

/// The footer: footer text, a tab to the centre, the timestamp, a tab to the right margin and a
/// `PAGE` field, as RAGFlow builds it.
pub fn footer(options: &DocOptions) -> String {
    let mut xml =
        format!("{XML_HEAD}<w:ftr {W_NS}><w:p><w:pPr><w:pStyle w:val=\"Footer\"/></w:pPr>");
    if !options.footer_text.is_empty() {
        xml.push_str(&text_run(&options.footer_text));
    }
    if options.add_timestamp || options.add_page_numbers {
        xml.push_str("<w:r><w:tab/></w:r>");
    }
    if options.add_timestamp {
        xml.push_str(&text_run(&options.timestamp_text));
    }
    if options.add_page_numbers {
        xml.push_str(
            "<w:r><w:tab/></w:r><w:r><w:fldChar w:fldCharType=\"begin\"/></w:r>\
<w:r><w:instrText xml:space=\"preserve\"> PAGE </w:instrText></w:r>\
<w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t>1</w:t></w:r>\
<w:r><w:fldChar w:fldCharType=\"end\"/></w:r>",
        );
    }
    xml.push_str("</w:p></w:ftr>");
    xml
}
