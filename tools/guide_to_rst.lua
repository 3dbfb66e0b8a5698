-- pandoc filter: a Markdown guide of docs/ as an extra docs page of the collection
-- (docs/docsite/rst/). Links to another guide become references to its page; other
-- relative links point to the file on the collection's repository; the page gets the label
-- the Ansible docs site and antsibull-docs expect.
local REPOSITORY = "https://github.com/cloudcompute/cloudcompute.cloud/blob/main/"
local PREFIX = "ansible_collections.cloudcompute.cloud.docsite."

local function page_name()
  local source = PANDOC_STATE.input_files[1]
  return source:match("([^/]+)%.md$")
end

local function reference(text, label)
  return pandoc.RawInline("rst", ":ref:`" .. text .. " <" .. label .. ">`")
end

-- Section labels carry the page's prefix too (antsibull-docs refuses any other label).
function Header(header)
  if header.identifier ~= "" then
    header.identifier = PREFIX .. page_name() .. "." .. header.identifier
  end
  return header
end

function Link(link)
  local target = link.target
  if target:match("^#") then
    return reference(pandoc.utils.stringify(link.content), PREFIX .. page_name() .. "." .. target:sub(2))
  end
  if target:match("^%a[%w+.-]*:") then
    return nil
  end
  local guide, anchor = target:match("^([%w_-]+)%.md(#?.*)$")
  if guide and anchor == "" then
    return reference(pandoc.utils.stringify(link.content), PREFIX .. guide)
  end
  link.target = REPOSITORY .. "docs/" .. target:gsub("^%./", "")
  return link
end

function Pandoc(document)
  local label = pandoc.RawBlock("rst", ".. _" .. PREFIX .. page_name() .. ":\n")
  table.insert(document.blocks, 1, label)
  return document
end

-- An HTML comment (such as the docs-example markers tests/integration/test_docs_examples.py
-- reads) is for the Markdown's readers and tools only: not a raw HTML block on the docs site.
function RawBlock(block)
  if block.format == "html" and block.text:match("^%s*<!%-%-.*%-%->%s*$") then
    return {}
  end
end
