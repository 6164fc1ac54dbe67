#include "image/draw_text.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <opencv2/imgproc.hpp>
#include <optional>
#include <vector>
#if NETWRIGHT_WITH_FREETYPE
#include <fontconfig/fontconfig.h>
#include <opencv2/freetype.hpp>
#endif

namespace nw {

namespace {

bool isAscii(const std::string& text)
{
    for (unsigned char c : text)
        if (c >= 0x80)
            return false;
    return true;
}

#if NETWRIGHT_WITH_FREETYPE
// The code points of UTF-8 text (a malformed byte is taken as Latin-1, as a reader would guess).
std::vector<FcChar32> codePoints(const std::string& text)
{
    std::vector<FcChar32> points;
    for (std::size_t i = 0; i < text.size();) {
        FcChar32 point = 0;
        const int length =
            FcUtf8ToUcs4(reinterpret_cast<const FcChar8*>(text.data() + i), &point, int(text.size() - i));
        if (length <= 0) {
            points.push_back(static_cast<unsigned char>(text[i]));
            ++i;
        } else {
            points.push_back(point);
            i += std::size_t(length);
        }
    }
    return points;
}

// The characters beyond ASCII in `text`, each once, in order: what a font must have. Labels differ in
// their percentages every frame; their names' letters do not.
std::vector<FcChar32> lettersBeyondAscii(const std::string& text)
{
    std::vector<FcChar32> letters;
    for (FcChar32 point : codePoints(text))
        if (point >= 0x80)
            letters.push_back(point);
    std::sort(letters.begin(), letters.end());
    letters.erase(std::unique(letters.begin(), letters.end()), letters.end());
    return letters;
}

// One FreeType face per font file, made once, and fontconfig's choice per set of letters (the detect
// loop draws a label per box per frame: asking fontconfig each time took milliseconds).
class UnicodeFonts {
public:
    UnicodeFonts() : config_(FcInitLoadConfigAndFonts()) {}
    ~UnicodeFonts()
    {
        if (config_)
            FcConfigDestroy(config_);
    }
    UnicodeFonts(const UnicodeFonts&) = delete;
    UnicodeFonts& operator=(const UnicodeFonts&) = delete;

    // The face for `text`, or null when no font file can be found or read.
    cv::freetype::FreeType2* faceFor(const std::string& text)
    {
        const std::vector<FcChar32> letters = lettersBeyondAscii(text);
        auto known = chosen_.find(letters);
        if (known == chosen_.end())
            known = chosen_.emplace(letters, fontFileFor(letters)).first;
        if (known->second.empty())
            return nullptr;
        auto& face = faces_[known->second];
        if (!face) {
            try {
                cv::Ptr<cv::freetype::FreeType2> made = cv::freetype::createFreeType2();
                made->loadFontData(known->second, 0);
                face = made;
            } catch (const cv::Exception&) {
                known->second.clear(); // an unreadable file: Hershey from now on
                return nullptr;
            }
        }
        return face.get();
    }
    std::mutex mutex;

private:
    // A sans-serif font file that has these letters, as fontconfig chooses it (empty: none).
    std::string fontFileFor(const std::vector<FcChar32>& letters) const
    {
        if (!config_)
            return {};
        FcPattern* pattern = FcNameParse(reinterpret_cast<const FcChar8*>("sans-serif"));
        FcCharSet* wanted = FcCharSetCreate();
        for (FcChar32 letter : letters)
            FcCharSetAddChar(wanted, letter);
        FcPatternAddCharSet(pattern, FC_CHARSET, wanted);
        FcConfigSubstitute(config_, pattern, FcMatchPattern);
        FcDefaultSubstitute(pattern);
        FcResult result = FcResultNoMatch;
        std::string file;
        if (FcPattern* match = FcFontMatch(config_, pattern, &result)) {
            FcChar8* path = nullptr;
            if (FcPatternGetString(match, FC_FILE, 0, &path) == FcResultMatch && path)
                file = reinterpret_cast<const char*>(path);
            FcPatternDestroy(match);
        }
        FcCharSetDestroy(wanted);
        FcPatternDestroy(pattern);
        return file;
    }

    FcConfig* config_ = nullptr;
    std::map<std::vector<FcChar32>, std::string> chosen_; // letters → font file
    std::map<std::string, cv::Ptr<cv::freetype::FreeType2>> faces_;
};

UnicodeFonts& unicodeFonts()
{
    static UnicodeFonts fonts;
    return fonts;
}

// The FreeType pixel height whose capitals stand as tall as Hershey simplex's at `scale`.
int pixelHeight(double scale)
{
    return std::max(6, int(std::lround(30.0 * scale)));
}
#endif

} // namespace

cv::Size textSize(const std::string& text, double scale, int* baseline, const std::string& fontOf)
{
#if NETWRIGHT_WITH_FREETYPE
    if (const std::string& letters = fontOf.empty() ? text : fontOf; !isAscii(letters)) {
        UnicodeFonts& fonts = unicodeFonts();
        const std::lock_guard lock(fonts.mutex);
        if (cv::freetype::FreeType2* face = fonts.faceFor(letters)) {
            int below = 0;
            const cv::Size size = face->getTextSize(text, pixelHeight(scale), -1, &below);
            if (baseline)
                *baseline = below;
            return size;
        }
    }
#endif
    int below = 0;
    const cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, 1, &below);
    if (baseline)
        *baseline = below;
    return size;
}

void drawText(cv::Mat& image, const std::string& text, cv::Point origin, double scale, cv::Scalar ink,
              const std::string& fontOf)
{
#if NETWRIGHT_WITH_FREETYPE
    const std::string& letters = fontOf.empty() ? text : fontOf;
    if (!isAscii(letters) && image.type() == CV_8UC3) { // (FreeType2 draws on 8-bit BGR only)
        UnicodeFonts& fonts = unicodeFonts();
        const std::lock_guard lock(fonts.mutex);
        if (cv::freetype::FreeType2* face = fonts.faceFor(letters)) {
            face->putText(image, text, origin, pixelHeight(scale), ink, -1, cv::LINE_AA, true);
            return;
        }
    }
#endif
    cv::putText(image, text, origin, cv::FONT_HERSHEY_SIMPLEX, scale, ink, 1, cv::LINE_AA);
}

} // namespace nw
